/* A lenient --lib decoder for the reproduction tests (include/utf8conf.h): UTF-8 as
 * Unicode 15 §3.9 Table 3-7 defines it, except that it also accepts
 *   C0 80      as U+0000 (Modified UTF-8's NUL, an overlong form RFC 3629 §3 forbids)
 *   ED A0..BF  followed by a continuation byte, as the surrogate it encodes
 * It reports valid and valid_up_to only. */
#include "utf8conf.h"

/* Length of the sequence at s[0..len) the decoder accepts, or 0 when it rejects it. */
static size_t accepted(const unsigned char *s, size_t len) {
    unsigned char b = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xBF;
    if (b <= 0x7F) return 1;
    if (b == 0xC0) return (len >= 2 && s[1] == 0x80) ? 2 : 0;
    if (b >= 0xC2 && b <= 0xDF) need = 1;
    else if (b == 0xE0) { need = 2; lo = 0xA0; }
    else if (b >= 0xE1 && b <= 0xEF) need = 2; /* ED: surrogates too */
    else if (b == 0xF0) { need = 3; lo = 0x90; }
    else if (b == 0xF4) { need = 3; hi = 0x8F; }
    else if (b >= 0xF1 && b <= 0xF3) need = 3;
    else return 0;
    if (need >= len) return 0;
    if (s[1] < lo || s[1] > hi) return 0;
    for (size_t k = 2; k <= need; k++) {
        if (s[k] < 0x80 || s[k] > 0xBF) return 0;
    }
    return need + 1;
}

int lenient_decode(const unsigned char *input, size_t len, uint32_t *scalars,
                   struct utf8conf_answer *answer) {
    (void)scalars;
    size_t i = 0;
    while (i < len) {
        size_t n = accepted(input + i, len - i);
        if (n == 0) break;
        i += n;
    }
    answer->valid = i == len;
    if (i < len) answer->valid_up_to = (long long)i;
    return 0;
}
