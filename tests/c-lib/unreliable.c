/* Deliberately unreliable --lib decoders for tests/unreliable_lib.rs (include/utf8conf.h).
 *
 * Each exported function fails in one way that does not depend on the input (or, for
 * `unreliable_slow`, does not fail at all): it hangs, exits, crashes every 100th call,
 * exits at its 1000th call, leaks 1 MiB a call, returns failure, or takes 50 ms an
 * answer. When it does answer, the answer is right (valid and valid_up_to, Table 3-7),
 * so no departure may ever be pinned on an input. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "utf8conf.h"
#include "well_formed.h"


static int correct(const unsigned char *input, size_t len, struct utf8conf_answer *answer) {
    size_t prefix = well_formed_prefix(input, len);
    answer->valid = prefix == len;
    if (prefix != len) {
        answer->valid_up_to = (long long)prefix;
    }
    return 0;
}

/* Calls this process has received. */
static unsigned long calls;

int unreliable_hang_always(const unsigned char *input, size_t len, uint32_t *scalars,
                           struct utf8conf_answer *answer) {
    (void)input; (void)len; (void)scalars; (void)answer;
    for (volatile int spin = 0;; spin++) {
    }
}

int unreliable_exit_always(const unsigned char *input, size_t len, uint32_t *scalars,
                           struct utf8conf_answer *answer) {
    (void)input; (void)len; (void)scalars; (void)answer;
    exit(0);
}

int unreliable_crash_every_100(const unsigned char *input, size_t len, uint32_t *scalars,
                               struct utf8conf_answer *answer) {
    (void)scalars;
    if (++calls % 100 == 0) {
        volatile int *nowhere = NULL;
        *nowhere = 1;
    }
    return correct(input, len, answer);
}

int unreliable_exit_at_1000(const unsigned char *input, size_t len, uint32_t *scalars,
                            struct utf8conf_answer *answer) {
    (void)scalars;
    if (++calls == 1000) {
        exit(0);
    }
    return correct(input, len, answer);
}

int unreliable_leak(const unsigned char *input, size_t len, uint32_t *scalars,
                    struct utf8conf_answer *answer) {
    (void)scalars;
    /* 1 MiB a call, never freed; at the address-space limit malloc returns NULL and the
     * write below crashes, as careless code would. */
    volatile char *block = malloc(1 << 20);
    block[0] = 1;
    return correct(input, len, answer);
}

int unreliable_fail_always(const unsigned char *input, size_t len, uint32_t *scalars,
                           struct utf8conf_answer *answer) {
    (void)input; (void)len; (void)scalars; (void)answer;
    return -1;
}

int unreliable_slow(const unsigned char *input, size_t len, uint32_t *scalars,
                    struct utf8conf_answer *answer) {
    (void)scalars;
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    return correct(input, len, answer);
}
