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
#include "well_formed.h"


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
