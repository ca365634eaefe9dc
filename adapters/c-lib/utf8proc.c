/* utf8proc's UTF-8 decoding as a utf8conf --lib shim (include/utf8conf.h).
 *
 * utf8proc_iterate(str, strlen, &codepoint) "reads a single codepoint from the UTF-8
 * sequence being pointed to by str ... returns the number of bytes read, or a negative
 * error code (UTF8PROC_ERROR_INVALIDUTF8) if the string is invalid" (utf8proc.h).
 * The shim walks the input with it: the first negative return is the strict verdict's
 * valid_up_to. utf8proc has no lossy mode and says nothing about the length of an
 * invalid sequence, so error_len and the scalars stay unreported rather than invented. */
#include <stdio.h>
#include <utf8proc.h>

#include "utf8conf.h"

int utf8proc_decode(const unsigned char *input, size_t len, uint32_t *scalars,
                    struct utf8conf_answer *answer) {
    (void)scalars;
    size_t position = 0;
    answer->valid = 1;
    while (position < len) {
        utf8proc_int32_t codepoint;
        utf8proc_ssize_t used = utf8proc_iterate(input + position,
                                                 (utf8proc_ssize_t)(len - position),
                                                 &codepoint);
        if (used <= 0) {
            answer->valid = 0;
            answer->valid_up_to = (long long)position;
            return 0;
        }
        position += (size_t)used;
    }
    return 0;
}

const char *utf8proc_decode_version(void) {
    static char version[64];
    snprintf(version, sizeof version, "utf8proc %s", utf8proc_version());
    return version;
}
