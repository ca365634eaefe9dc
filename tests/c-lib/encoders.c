/*
 * Two UTF-8 encoders behind include/utf8conf.h, for the tests of
 * `utf8conf check --encoder --lib`:
 *
 * - strict_encode_utf16: correct; refuses the first lone or reversed surrogate at its
 *   code unit, as the reference encoder does (RFC 3629 section 3: "The definition of
 *   UTF-8 prohibits encoding character numbers between U+D800 and U+DFFF").
 * - cesu_encode_utf32: buggy in the way of CESU-8 and Modified UTF-8: writes U+0000 as
 *   C0 80, a supplementary character as two three-byte surrogates, and a surrogate code
 *   point in three bytes; refuses values above U+10FFFF.
 *
 * A third function crashes on a chosen input, so that a crash in an encoder is a
 * finding on that very input.
 */
#include <stdlib.h>
#include "utf8conf.h"

static size_t put3(unsigned char *out, size_t at, uint32_t value) {
    out[at] = (unsigned char)(0xE0 | (value >> 12));
    out[at + 1] = (unsigned char)(0x80 | ((value >> 6) & 0x3F));
    out[at + 2] = (unsigned char)(0x80 | (value & 0x3F));
    return at + 3;
}

static size_t put(unsigned char *out, size_t at, uint32_t value) {
    if (value < 0x80) {
        out[at] = (unsigned char)value;
        return at + 1;
    }
    if (value < 0x800) {
        out[at] = (unsigned char)(0xC0 | (value >> 6));
        out[at + 1] = (unsigned char)(0x80 | (value & 0x3F));
        return at + 2;
    }
    if (value < 0x10000) {
        return put3(out, at, value);
    }
    out[at] = (unsigned char)(0xF0 | (value >> 18));
    out[at + 1] = (unsigned char)(0x80 | ((value >> 12) & 0x3F));
    out[at + 2] = (unsigned char)(0x80 | ((value >> 6) & 0x3F));
    out[at + 3] = (unsigned char)(0x80 | (value & 0x3F));
    return at + 4;
}

int strict_encode_utf16(const uint16_t *input, size_t len, unsigned char *out,
                        struct utf8conf_encode_answer *answer) {
    size_t written = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t unit = input[i];
        if (unit >= 0xD800 && unit <= 0xDBFF && i + 1 < len && input[i + 1] >= 0xDC00 &&
            input[i + 1] <= 0xDFFF) {
            uint32_t scalar = 0x10000 + ((unit - 0xD800) << 10) + (input[i + 1] - 0xDC00);
            written = put(out, written, scalar);
            i++;
        } else if (unit >= 0xD800 && unit <= 0xDFFF) {
            answer->ok = 0;
            answer->error_at = (long long)i;
            answer->bytes_len = (long long)written;
            return 0;
        } else {
            written = put(out, written, unit);
        }
    }
    answer->ok = 1;
    answer->bytes_len = (long long)written;
    return 0;
}

int cesu_encode_utf32(const uint32_t *input, size_t len, unsigned char *out,
                      struct utf8conf_encode_answer *answer) {
    size_t written = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t value = input[i];
        if (value > 0x10FFFF) {
            answer->ok = 0;
            answer->error_at = (long long)i;
            answer->bytes_len = (long long)written;
            return 0;
        }
        if (value == 0) {
            out[written++] = 0xC0;
            out[written++] = 0x80;
        } else if (value >= 0x10000) {
            written = put3(out, written, 0xD800 + ((value - 0x10000) >> 10));
            written = put3(out, written, 0xDC00 + ((value - 0x10000) & 0x3FF));
        } else {
            written = put(out, written, value);
        }
    }
    answer->ok = 1;
    answer->bytes_len = (long long)written;
    return 0;
}

/* strict_encode_utf16, except that the code unit FFFF alone segfaults. */
int crashing_encode_utf16(const uint16_t *input, size_t len, unsigned char *out,
                          struct utf8conf_encode_answer *answer) {
    if (len == 1 && input[0] == 0xFFFF) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    return strict_encode_utf16(input, len, out, answer);
}
