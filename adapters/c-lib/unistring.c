/* GNU libunistring's UTF-8 decoding as a utf8conf --lib shim (include/utf8conf.h).
 *
 * Strict verdict and valid_up_to: u8_check(s, n), which "returns NULL if the string is
 * valid, or a pointer to the first invalid unit otherwise" (libunistring manual, 4.1).
 * error_len: u8_mbtoucr at that unit, which "returns -2 if the string is incomplete"
 * (reported as 0, Rust's None) and -1 for an invalid unit, whose length is then the
 * count u8_mbtouc consumes.
 * Lossy decode: u8_mbtouc repeatedly; "in case of an invalid input, it stores
 * 0xfffd ... and returns the number of bytes that were consumed" (manual, 4.2). */
#include <stdio.h>
#include <unistr.h>
#include <unistring/version.h>

#include "utf8conf.h"

int unistring_decode(const unsigned char *input, size_t len, uint32_t *scalars,
                     struct utf8conf_answer *answer) {
    const uint8_t *bad = u8_check(input, len);
    answer->valid = bad == NULL ? 1 : 0;
    if (bad != NULL) {
        size_t offset = (size_t)(bad - input);
        ucs4_t uc;
        answer->valid_up_to = (long long)offset;
        int strict = u8_mbtoucr(&uc, bad, len - offset);
        if (strict == -2) {
            answer->error_len = 0;
        } else if (strict == -1) {
            answer->error_len = u8_mbtouc(&uc, bad, len - offset);
        }
    }
    size_t position = 0;
    long long count = 0;
    while (position < len) {
        ucs4_t uc;
        int used = u8_mbtouc(&uc, input + position, len - position);
        if (used <= 0) {
            return 1;
        }
        scalars[count++] = uc;
        position += (size_t)used;
    }
    answer->scalars_len = count;
    return 0;
}

const char *unistring_decode_version(void) {
    static char version[64];
    /* _libunistring_version is 0xMMmmss (major, minor, subminor). */
    snprintf(version, sizeof version, "libunistring %d.%d.%d", _libunistring_version >> 16,
             (_libunistring_version >> 8) & 0xff, _libunistring_version & 0xff);
    return version;
}
