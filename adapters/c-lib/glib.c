/* GLib's UTF-8 decoding as a utf8conf --lib shim (include/utf8conf.h).
 *
 * Strict verdict and valid_up_to: g_utf8_validate_len(input, len, &end), GLib's
 * validator for counted strings ("Note that g_utf8_validate() returns FALSE if
 * max_len is positive and any of the max_len bytes are nul", GLib reference).
 * Lossy decode: g_utf8_make_valid(input, len), GLib's own U+FFFD substitution, read
 * back with g_utf8_get_char. GLib reports no error length, so error_len stays -1. */
#include <glib.h>
#include <string.h>

#include "utf8conf.h"

int glib_decode(const unsigned char *input, size_t len, uint32_t *scalars,
                struct utf8conf_answer *answer) {
    const gchar *text = (const gchar *)input;
    const gchar *end = NULL;
    gboolean valid = g_utf8_validate_len(text, len, &end);
    answer->valid = valid ? 1 : 0;
    if (!valid) {
        answer->valid_up_to = (long long)(end - text);
    }
    gchar *fixed = g_utf8_make_valid(text, (gssize)len);
    if (fixed == NULL) {
        return 1;
    }
    /* make_valid's result is NUL-terminated valid UTF-8; an input NUL is either kept
     * (then the scalars stop there, which the grading shows) or replaced. */
    size_t capacity = len > 0 ? len : 1;
    long long count = 0;
    for (const gchar *p = fixed; *p != '\0' && (size_t)count < capacity;
         p = g_utf8_next_char(p)) {
        scalars[count++] = (uint32_t)g_utf8_get_char(p);
    }
    g_free(fixed);
    answer->scalars_len = count;
    return 0;
}

const char *glib_decode_version(void) {
    static char version[64];
    g_snprintf(version, sizeof version, "GLib %u.%u.%u", glib_major_version,
               glib_minor_version, glib_micro_version);
    return version;
}
