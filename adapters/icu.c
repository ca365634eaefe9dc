/*
 * utf8conf adapter for ICU's UTF-8 converter (protocol utf8conf/2; streaming in the
 * modes that substitute).
 *
 * Decoder: ICU4C's conversion API, ucnv_open("UTF-8") and ucnv_toUnicode() into
 * UTF-16, one converter per callback kind, opened once and ucnv_reset() before every
 * input. Each input is converted in a single call with flush = TRUE (the whole input
 * is the whole stream).
 *
 * Modes (first argument):
 *   stop        the to-Unicode callback is UCNV_TO_U_CALLBACK_STOP, so conversion
 *               stops at the first illegal or truncated sequence
 *                 valid        ucnv_toUnicode() left U_ZERO_ERROR
 *                 error_len    the number of bytes ucnv_getInvalidChars() returns,
 *                              the sequence the converter rejected; null when the
 *                              error code is U_TRUNCATED_CHAR_FOUND, ICU's "input
 *                              ended inside a character" (flush = TRUE)
 *                 valid_up_to  how far the converter advanced the source pointer,
 *                              minus those invalid bytes: the converter consumes the
 *                              rejected sequence before it stops, so this is where
 *                              that sequence starts
 *                 scalars      only when valid: the UTF-16 output, surrogate pairs
 *                              combined with U16_NEXT
 *                 error        the ICU error name (u_errorName)
 *   substitute  the to-Unicode callback is UCNV_TO_U_CALLBACK_SUBSTITUTE, which
 *               writes the converter's substitution character U+FFFD for each
 *               sequence it rejects
 *                 scalars      the UTF-16 output, surrogate pairs combined
 *                 valid        from the stop converter on the same bytes (the
 *                              substituting one does not say whether it substituted)
 *   (none)      both in one answer: the stop fields, plus scalars from substitute.
 *
 * Cannot report: errors after the first in valid_up_to/error_len.
 *
 * Streaming mode (modes both and substitute; docs/PROTOCOL.md): an input sent as chunk
 * frames goes through one more converter, ucnv_reset() at the input's first chunk. Each
 * chunk is converted by ucnv_toUnicode() with flush = FALSE (the converter keeps the
 * bytes of a character it has not seen the end of); the end mark calls it with an empty
 * source and flush = TRUE. The UTF-16 each call wrote is the chunk's `emitted` list and
 * the `flush`. The to-Unicode callback records every error and then calls
 * UCNV_TO_U_CALLBACK_SUBSTITUTE, so errors are reported as ICU reports them: `valid` is
 * false when the callback was called for an illegal, irregular or unassigned sequence;
 * the first such call gives `valid_up_to` (the bytes fed before the call, plus how far
 * the call had advanced its source pointer, minus the callback's code unit count, since
 * the converter has consumed the rejected bytes, some possibly from earlier chunks) and
 * `error_len` (that count, or null when ICU's error code is U_TRUNCATED_CHAR_FOUND: the
 * input ended inside a character).
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line with its `seq`, flushed; exit 0 at end of input. A header
 * with the top bit set is a chunk of a streamed input, 0xFFFFFFFF its end mark.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ucnv.h>
#include <unicode/uclean.h>
#include <unicode/utf16.h>
#include <unicode/utypes.h>
#include <unicode/uversion.h>

/* What one stop-callback conversion found. */
struct StopResult {
    UErrorCode error;         /* U_ZERO_ERROR when the input converted cleanly */
    size_t consumed;          /* how far the converter advanced the source pointer */
    int8_t invalid_len;       /* bytes ucnv_getInvalidChars() returned, -1 if it failed */
    int32_t output_len;       /* UTF-16 units written */
};

/* Streaming mode's frame headers (docs/PROTOCOL.md, "Streaming mode"). */
#define CHUNK_FLAG 0x80000000u
#define END_MARK 0xFFFFFFFFu

/* What the streaming converter's callback saw, for one streamed input. */
struct StreamErrors {
    size_t fed_before;        /* bytes of the input passed to earlier calls */
    const char *call_source;  /* the current call's source start */
    int errors;               /* callback calls for rejected sequences */
    size_t first_offset;      /* the first one's offset in the input */
    int first_len;            /* its code unit count */
    int first_truncated;      /* its error code was U_TRUNCATED_CHAR_FOUND */
    UErrorCode first_error;   /* its error code */
};

/* A growable text buffer (the streamed input's `emitted` JSON). */
struct Text {
    char *bytes;
    size_t len, capacity;
};

static void fail(const char *what, UErrorCode error) {
    fprintf(stderr, "icu adapter: %s: %s\n", what, u_errorName(error));
    exit(1);
}

static size_t read_exactly(unsigned char *buffer, size_t length) {
    size_t total = 0;
    while (total < length) {
        size_t got = fread(buffer + total, 1, length - total, stdin);
        if (got == 0) {
            break;
        }
        total += got;
    }
    return total;
}

static void *reserve(void *buffer, size_t *capacity, size_t needed) {
    if (*capacity >= needed) {
        return buffer;
    }
    size_t grown = *capacity ? *capacity : 256;
    while (grown < needed) {
        grown *= 2;
    }
    void *resized = realloc(buffer, grown);
    if (resized == NULL) {
        fprintf(stderr, "icu adapter: out of memory for %zu bytes\n", needed);
        exit(1);
    }
    *capacity = grown;
    return resized;
}

static void text_append(struct Text *text, const char *piece, size_t len) {
    text->bytes = reserve(text->bytes, &text->capacity, text->len + len + 1);
    memcpy(text->bytes + text->len, piece, len);
    text->len += len;
}

/* Appends UTF-16 units as a JSON array of scalars, surrogate pairs combined. */
static void text_scalars(struct Text *text, const UChar *units, int32_t count) {
    text_append(text, "[", 1);
    int32_t index = 0;
    while (index < count) {
        UChar32 scalar;
        U16_NEXT(units, index, count, scalar);
        char number[16];
        int len = snprintf(number, sizeof number, index == count ? "%ld" : "%ld,", (long)scalar);
        text_append(text, number, (size_t)len);
    }
    text_append(text, "]", 1);
}

/* The streaming converter's to-Unicode callback: records the error, then substitutes. */
static void U_EXPORT2 record_and_substitute(const void *context, UConverterToUnicodeArgs *args,
                                              const char *code_units, int32_t length,
                                              UConverterCallbackReason reason, UErrorCode *error) {
    struct StreamErrors *seen = (struct StreamErrors *)context;
    if (reason == UCNV_ILLEGAL || reason == UCNV_IRREGULAR || reason == UCNV_UNASSIGNED) {
        if (seen->errors == 0) {
            size_t advanced = (size_t)(args->source - seen->call_source);
            seen->first_offset = seen->fed_before + advanced - (size_t)length;
            seen->first_len = length;
            seen->first_truncated = *error == U_TRUNCATED_CHAR_FOUND;
            seen->first_error = *error;
        }
        seen->errors++;
    }
    UCNV_TO_U_CALLBACK_SUBSTITUTE(NULL, args, code_units, length, reason, error);
}

/* One ucnv_toUnicode() call of a streamed input over source[0..length); the UTF-16 it
 * wrote, as a JSON array, goes to text. output must hold length + 8 units. */
static void stream_call(UConverter *converter, struct StreamErrors *seen, const unsigned char *source,
                        size_t length, UBool flush, UChar *output, struct Text *text) {
    const char *next = (const char *)source;
    UChar *target = output;
    UErrorCode error = U_ZERO_ERROR;
    seen->call_source = next;
    /* At most one unit per byte, plus the substitutions for bytes held from earlier
     * calls (a UTF-8 converter holds at most 3). */
    ucnv_toUnicode(converter, &target, output + length + 8, &next, next + length, NULL, flush,
                   &error);
    if (U_FAILURE(error)) {
        fail("ucnv_toUnicode (streaming)", error);
    }
    seen->fed_before += length;
    text_scalars(text, output, (int32_t)(target - output));
}

static UConverter *open_utf8(UConverterToUCallback callback) {
    UErrorCode error = U_ZERO_ERROR;
    UConverter *converter = ucnv_open("UTF-8", &error);
    if (U_FAILURE(error)) {
        fail("ucnv_open(\"UTF-8\")", error);
    }
    ucnv_setToUCallBack(converter, callback, NULL, NULL, NULL, &error);
    if (U_FAILURE(error)) {
        fail("ucnv_setToUCallBack", error);
    }
    return converter;
}

/* Converts input[0..length) in one flushing call; the output must hold length + 1 units. */
static struct StopResult convert(UConverter *converter, const unsigned char *input, size_t length,
                                 UChar *output) {
    struct StopResult result;
    ucnv_reset(converter);
    const char *source = (const char *)input;
    UChar *target = output;
    result.error = U_ZERO_ERROR;
    ucnv_toUnicode(converter, &target, output + length + 1, &source, source + length, NULL, 1,
                   &result.error);
    result.consumed = (size_t)((const unsigned char *)source - input);
    result.output_len = (int32_t)(target - output);
    result.invalid_len = -1;
    if (U_FAILURE(result.error)) {
        char invalid[32];
        int8_t invalid_len = (int8_t)sizeof invalid;
        UErrorCode invalid_error = U_ZERO_ERROR;
        ucnv_getInvalidChars(converter, invalid, &invalid_len, &invalid_error);
        if (U_SUCCESS(invalid_error)) {
            result.invalid_len = invalid_len;
        }
    }
    return result;
}

static void print_scalars(const UChar *units, int32_t count) {
    fputs("\"scalars\":[", stdout);
    int32_t index = 0;
    int first = 1;
    while (index < count) {
        UChar32 scalar;
        U16_NEXT(units, index, count, scalar);
        printf(first ? "%ld" : ",%ld", (long)scalar);
        first = 0;
    }
    fputc(']', stdout);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "both";
    int want_stop = strcmp(mode, "both") == 0 || strcmp(mode, "stop") == 0;
    int want_substitute = strcmp(mode, "both") == 0 || strcmp(mode, "substitute") == 0;
    if (argc > 2 || !(want_stop || want_substitute)) {
        fprintf(stderr, "usage: icu-adapter [stop|substitute]\n");
        return 2;
    }
    UConverter *stopping = open_utf8(UCNV_TO_U_CALLBACK_STOP);
    UConverter *substituting = open_utf8(UCNV_TO_U_CALLBACK_SUBSTITUTE);
    int streaming = want_substitute;
    struct StreamErrors seen;
    UConverter *streamer = open_utf8(UCNV_TO_U_CALLBACK_SUBSTITUTE);
    UErrorCode callback_error = U_ZERO_ERROR;
    ucnv_setToUCallBack(streamer, record_and_substitute, &seen, NULL, NULL, &callback_error);
    if (U_FAILURE(callback_error)) {
        fail("ucnv_setToUCallBack (streaming)", callback_error);
    }
    struct Text emitted = {NULL, 0, 0};
    int in_stream = 0;
    unsigned long long seq = 0;

    UVersionInfo version_info;
    char version[U_MAX_VERSION_STRING_LENGTH];
    u_getVersion(version_info);
    u_versionToString(version_info, version);
    printf("{\"protocol\":\"utf8conf/2\",\"name\":\"%s\",\"version\":\"ICU %s\",\"streaming\":%s}\n",
           strcmp(mode, "both") == 0 ? "icu" : (want_stop ? "icu-stop" : "icu-substitute"), version,
           streaming ? "true" : "false");
    fflush(stdout);

    unsigned char *input = NULL;
    UChar *output = NULL;
    size_t input_capacity = 0, output_capacity = 0;
    for (;;) {
        unsigned char header[4];
        size_t header_len = read_exactly(header, 4);
        if (header_len == 0 && in_stream) {
            fprintf(stderr, "icu adapter: end of input inside a streamed input\n");
            return 2;
        }
        if (header_len == 0) {
            ucnv_close(streamer);
            free(emitted.bytes);
            ucnv_close(stopping);
            ucnv_close(substituting);
            u_cleanup();
            return 0;
        }
        if (header_len != 4) {
            fprintf(stderr, "icu adapter: end of input inside a frame header\n");
            return 2;
        }
        size_t length = (size_t)header[0] | (size_t)header[1] << 8 | (size_t)header[2] << 16 |
                        (size_t)header[3] << 24;
        int chunk = 0;
        if (streaming && length == END_MARK) {
            if (!in_stream) {
                ucnv_reset(streamer);
                memset(&seen, 0, sizeof seen);
                emitted.len = 0;
            }
            output = reserve(output, &output_capacity, 8 * sizeof(UChar));
            struct Text flushed = {NULL, 0, 0};
            stream_call(streamer, &seen, (const unsigned char *)"", 0, 1, output, &flushed);
            printf("{\"seq\":%llu,\"valid\":%s", seq++, seen.errors == 0 ? "true" : "false");
            if (seen.errors != 0) {
                printf(",\"valid_up_to\":%zu", seen.first_offset);
                if (seen.first_truncated) {
                    fputs(",\"error_len\":null", stdout);
                } else {
                    printf(",\"error_len\":%d", seen.first_len);
                }
                printf(",\"error\":\"%s\"", u_errorName(seen.first_error));
            }
            printf(",\"emitted\":[%.*s],\"flush\":%.*s}\n", (int)emitted.len,
                   emitted.bytes ? emitted.bytes : "", (int)flushed.len, flushed.bytes);
            fflush(stdout);
            free(flushed.bytes);
            in_stream = 0;
            continue;
        }
        if (streaming && (length & CHUNK_FLAG) != 0) {
            chunk = 1;
            length &= ~(size_t)CHUNK_FLAG;
        }
        if (length > (size_t)INT32_MAX / 2) {
            fprintf(stderr, "icu adapter: frame of %zu bytes is too large for ICU's int32 lengths\n",
                    length);
            return 1;
        }
        input = reserve(input, &input_capacity, length + 1);
        if (read_exactly(input, length) != length) {
            fprintf(stderr, "icu adapter: end of input inside a frame body\n");
            return 2;
        }
        /* A UTF-8 byte yields at most one UTF-16 unit, a substitution included. */
        output = reserve(output, &output_capacity, (length + 8) * sizeof(UChar));
        if (chunk) {
            if (!in_stream) {
                ucnv_reset(streamer);
                memset(&seen, 0, sizeof seen);
                emitted.len = 0;
                in_stream = 1;
            } else {
                text_append(&emitted, ",", 1);
            }
            stream_call(streamer, &seen, input, length, 0, output, &emitted);
            continue;
        }

        struct StopResult stop = convert(stopping, input, length, output);
        if (stop.error == U_BUFFER_OVERFLOW_ERROR) {
            fail("ucnv_toUnicode (stop)", stop.error);
        }
        int valid = U_SUCCESS(stop.error);
        printf("{\"seq\":%llu,\"valid\":%s", seq++, valid ? "true" : "false");
        if (want_stop && !valid) {
            if (stop.error == U_TRUNCATED_CHAR_FOUND) {
                if (stop.invalid_len >= 0) {
                    printf(",\"valid_up_to\":%zu", stop.consumed - (size_t)stop.invalid_len);
                }
                fputs(",\"error_len\":null", stdout);
            } else if (stop.invalid_len >= 0) {
                printf(",\"valid_up_to\":%zu,\"error_len\":%d", stop.consumed - (size_t)stop.invalid_len,
                       (int)stop.invalid_len);
            }
            printf(",\"error\":\"%s\"", u_errorName(stop.error));
        }
        if (valid && want_stop) {
            fputc(',', stdout);
            print_scalars(output, stop.output_len);
        } else if (want_substitute) {
            struct StopResult substituted = convert(substituting, input, length, output);
            if (U_FAILURE(substituted.error)) {
                fail("ucnv_toUnicode (substitute)", substituted.error);
            }
            fputc(',', stdout);
            print_scalars(output, substituted.output_len);
        }
        fputs("}\n", stdout);
        fflush(stdout);
    }
}
