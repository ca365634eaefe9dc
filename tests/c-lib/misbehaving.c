/* A deliberately misbehaving --lib decoder for tests/lib_check.rs (include/utf8conf.h).
 *
 * Its strict verdict is correct (Unicode 15 §3.9, Table 3-7, well-formed byte
 * sequences), but on four exact inputs it misbehaves the ways a real C library can:
 *   FF FF           writes through a NULL pointer (SIGSEGV)
 *   C0 AF           calls abort() (SIGABRT)
 *   ED A0 80        loops forever (a hang)
 *   F8 88 80 80 80  answers valid = 7 (breaks the header's rules)
 * and it prints to standard output on every input starting with 'p' (70), which must not
 * disturb the worker's answers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "utf8conf.h"

/* Offset of the first byte that is not part of a well-formed sequence (Table 3-7), or
 * len when the input is well-formed. */
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

static int is(const unsigned char *input, size_t len, const char *bytes, size_t n) {
    return len == n && memcmp(input, bytes, n) == 0;
}

int misbehaving_decode(const unsigned char *input, size_t len, uint32_t *scalars,
                       struct utf8conf_answer *answer) {
    (void)scalars;
    if (is(input, len, "\xFF\xFF", 2)) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    if (is(input, len, "\xC0\xAF", 2)) {
        abort();
    }
    if (is(input, len, "\xED\xA0\x80", 3)) {
        for (volatile int spin = 0;; spin++) {
        }
    }
    if (is(input, len, "\xF8\x88\x80\x80\x80", 5)) {
        answer->valid = 7;
        return 0;
    }
    if (len > 0 && input[0] == 'p') {
        printf("stray library output\n");
        fflush(stdout);
    }
    size_t prefix = well_formed_prefix(input, len);
    answer->valid = prefix == len;
    if (prefix != len) {
        answer->valid_up_to = (long long)prefix;
    }
    return 0;
}
