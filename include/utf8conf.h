/*
 * utf8conf.h: the C interface through which `utf8conf check --lib` grades a UTF-8
 * decoder written in C or C++ at in-process speed.
 *
 * Write one function with the signature of `utf8conf_decode_fn`, export it from a
 * shared library, and run
 *
 *     utf8conf check --lib ./libyours.so --symbol yours_decode
 *
 * The harness never loads the library into its own process: a worker process (the
 * utf8conf binary itself) dlopens it and is fed the inputs in large batches. A crash,
 * an abort or a hang inside the function is reported as a `crash` or `timeout` finding
 * for the input that caused it; the worker is restarted and the check goes on.
 *
 * Anything the library prints on standard output goes to standard error instead (the
 * worker's standard output carries its answers).
 */
#ifndef UTF8CONF_H
#define UTF8CONF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What the decoder says about one input. The worker sets every field to -1 before
 * each call; the function sets `valid` and whichever other fields its decoder
 * reports, and leaves the rest at -1 ("not reported": a field a decoder cannot
 * produce is never invented).
 */
struct utf8conf_answer {
    /* 1: the whole input is well-formed UTF-8; 0: it is not. Required. */
    int valid;
    /* Offset of the first ill-formed byte, when valid == 0 (Rust's
     * Utf8Error::valid_up_to). -1: not reported. */
    long long valid_up_to;
    /* Length in bytes of the first error unit, when valid == 0 (Rust's
     * Utf8Error::error_len): 1..=4, or 0 when the input ends inside a sequence that more
     * bytes could still complete (Rust's None). -1: not reported. */
    int error_len;
    /* Number of scalar values written to `scalars`: the lossy decode, U+FFFD where the
     * decoder substituted. -1: the decoder has no lossy decode. */
    long long scalars_len;
};

/*
 * Decodes `input[0..len)`. `scalars` has room for max(len, 1) values (a lossy decode
 * never yields more scalars than bytes). Returns 0 on success; any other value means
 * the shim itself failed (for example an allocation), which is reported as a
 * `protocol` finding with that value.
 */
typedef int (*utf8conf_decode_fn)(const unsigned char *input, size_t len,
                                  uint32_t *scalars, struct utf8conf_answer *answer);

/*
 * Encoders: `utf8conf check --encoder --lib ./libyours.so --symbol yours_encode
 * --encode utf16` (or `utf32`) grades a UTF-8 *encoder* exporting one function of the
 * matching type below, in the same worker, with the same guarantees.
 *
 * What the encoder says about one input. The worker sets every field to -1 before each
 * call; the function sets `ok` and `bytes_len`, and `error_at` when it refuses and its
 * API says where.
 */
struct utf8conf_encode_answer {
    /* 1: the whole input was encoded; 0: the encoder refused it. Required. */
    int ok;
    /* When ok == 0: the index of the code unit (not byte) the encoder refused, in
     * 0..len. -1: not reported. */
    long long error_at;
    /* Number of bytes written to `out`: all of them when ok == 1, what the encoder wrote
     * before stopping when ok == 0 (-1 or 0 when it wrote nothing). */
    long long bytes_len;
};

/*
 * Encodes the UTF-16 code units `input[0..len)` (possibly ill-formed: lone or reversed
 * surrogates) to UTF-8. `out` has room for max(3 * len, 1) bytes: no code unit needs
 * more under any policy (a lone surrogate written as U+FFFD, WTF-8 or CESU-8 takes 3).
 * Returns 0 on success (whether or not the encoder refused the input); any other value
 * means the shim itself failed, reported as a `protocol` finding.
 */
typedef int (*utf8conf_encode_utf16_fn)(const uint16_t *input, size_t len,
                                        unsigned char *out,
                                        struct utf8conf_encode_answer *answer);

/*
 * Encodes the 32-bit code points `input[0..len)` (possibly not scalar values: surrogates,
 * values above U+10FFFF) to UTF-8. `out` has room for max(6 * len, 1) bytes, RFC 2279's
 * longest form, so that an encoder that still writes one is seen doing it. Returns as
 * `utf8conf_encode_utf16_fn` does.
 */
typedef int (*utf8conf_encode_utf32_fn)(const uint32_t *input, size_t len,
                                        unsigned char *out,
                                        struct utf8conf_encode_answer *answer);

/*
 * Optional: if the library also exports `<symbol>_version` with this signature, its
 * string (for example the wrapped library's version) is shown in reports.
 */
typedef const char *(*utf8conf_version_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* UTF8CONF_H */
