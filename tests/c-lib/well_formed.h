/* Shared by the C test libraries: the offset of the first byte that is not part of a
 * well-formed sequence (Unicode Table 3-7), or len when the whole input is well-formed.
 * It is how a correct answer is computed, written here once. */
#ifndef UTF8CONF_TEST_WELL_FORMED_H
#define UTF8CONF_TEST_WELL_FORMED_H

#include <stddef.h>

static size_t well_formed_prefix(const unsigned char *s, size_t len) {
    size_t i = 0;
    while (i < len) {
        unsigned char b = s[i];
        size_t need;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b <= 0x7F) { i += 1; continue; }
        else if (b >= 0xC2 && b <= 0xDF) need = 1;
        else if (b == 0xE0) { need = 2; lo = 0xA0; }
        else if (b == 0xED) { need = 2; hi = 0x9F; }
        else if (b >= 0xE1 && b <= 0xEF) need = 2;
        else if (b == 0xF0) { need = 3; lo = 0x90; }
        else if (b == 0xF4) { need = 3; hi = 0x8F; }
        else if (b >= 0xF1 && b <= 0xF3) need = 3;
        else return i;
        if (i + need >= len) return i;
        if (s[i + 1] < lo || s[i + 1] > hi) return i;
        for (size_t k = 2; k <= need; k++) {
            if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
        }
        i += need + 1;
    }
    return len;
}

#endif
