/*
 * utf8conf encoder adapter for ICU's UTF-16 -> UTF-8 conversion (protocol utf8conf/2,
 * encode mode).
 *
 * Encoders: ICU4C's string functions u_strToUTF8() and u_strToUTF8WithSub(), and its
 * conversion API (ucnv_fromUnicode() on a "UTF-8" converter). Input is UTF-16
 * (`"encode":"utf16"`): each frame is UChar code units, little-endian. Each input is
 * converted in one call with its explicit length (so U+0000 is an ordinary unit).
 *
 * Modes (first argument):
 *   stop        u_strToUTF8(): an unpaired surrogate stops it "with the
 *               U_INVALID_CHAR_FOUND error code" (ustring.h, u_strToUTF8WithSub).
 *               On failure ICU says neither where it stopped nor how many bytes it
 *               wrote, so the refusal has no error_at and no bytes; `error` is the
 *               ICU error name.
 *   substitute  u_strToUTF8WithSub() with subchar U+FFFD, "the substitution
 *               character to use in place of an illegal input sequence ... The
 *               recommended value is U+FFFD". Always ok.
 *   converter   ucnv_fromUnicode() with flush = TRUE and the from-Unicode callback
 *               UCNV_FROM_U_CALLBACK_STOP, ucnv_reset() before every input. On an
 *               error the converter has consumed the refused unit(s):
 *               ucnv_getInvalidUChars() gives them, so error_at is how far it
 *               advanced the source pointer minus their count, and `bytes` what it
 *               wrote to the target before stopping.
 *   converter-substitute
 *               ucnv_fromUnicode() as above with UCNV_FROM_U_CALLBACK_SUBSTITUTE,
 *               which writes the converter's own substitution bytes (ucnv_getSubstChars)
 *               for each unit it cannot convert; the hello's version names them. Always
 *               ok.
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes; N even) exactly one JSON line with its `seq`, flushed; exit 0 at end of input.
 * A frame of odd length or too long for ICU's int32 lengths, or one cut short by the
 * end of input, is a one-line error on stderr and exit 2. The input buffer grows as
 * the frame's bytes arrive, so a header that announces more bytes than follow costs
 * no memory.
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/ucnv.h>
#include <unicode/ucnv_err.h>
#include <unicode/uclean.h>
#include <unicode/ustring.h>

/* The first allocation for a frame; it doubles as bytes arrive. */
#define FIRST_CHUNK ((size_t)1 << 16)

static void fail(const char *message) {
    fprintf(stderr, "icu encoder adapter: %s\n", message);
    exit(2);
}

static void *reserve(void *buffer, size_t *capacity, size_t needed) {
    if (needed <= *capacity) {
        return buffer;
    }
    void *grown = realloc(buffer, needed);
    if (grown == NULL) {
        fail("out of memory");
    }
    *capacity = needed;
    return grown;
}

/* Reads up to `length` bytes into *buffer, growing it as bytes arrive; returns the
 * count read, fewer only at the end of input. */
static size_t read_frame(unsigned char **buffer, size_t *capacity, size_t length) {
    size_t filled = 0;
    while (filled < length) {
        size_t step = filled < FIRST_CHUNK ? FIRST_CHUNK : filled;
        size_t want = length - filled < step ? length - filled : step;
        *buffer = reserve(*buffer, capacity, filled + want);
        size_t got = fread(*buffer + filled, 1, want, stdin);
        filled += got;
        if (got < want) {
            break;
        }
    }
    return filled;
}

/* Prints `"bytes":[…]` for the `count` bytes. */
static void print_bytes(const char *bytes, int32_t count) {
    fputs("\"bytes\":[", stdout);
    for (int32_t i = 0; i < count; i++) {
        printf(i == 0 ? "%u" : ",%u", (unsigned)(unsigned char)bytes[i]);
    }
    putchar(']');
}

/* u_strToUTF8WithSub with `subchar` (U_SENTINEL: u_strToUTF8's refusal). */
static void string_mode(const UChar *units, int32_t count, UChar32 subchar, char *output,
                        int32_t capacity) {
    UErrorCode error = U_ZERO_ERROR;
    int32_t written = 0;
    if (subchar == U_SENTINEL) {
        u_strToUTF8(output, capacity, &written, units, count, &error);
    } else {
        u_strToUTF8WithSub(output, capacity, &written, units, count, subchar, NULL, &error);
    }
    if (error == U_BUFFER_OVERFLOW_ERROR) {
        fail("u_strToUTF8 overflowed a buffer of 3 bytes per unit");
    }
    if (U_FAILURE(error)) {
        printf("\"ok\":false,\"error\":\"%s\"}\n", u_errorName(error));
        return;
    }
    fputs("\"ok\":true,", stdout);
    print_bytes(output, written);
    fputs("}\n", stdout);
}

/* ucnv_fromUnicode with the STOP callback; the refusal's position from the source
 * pointer and ucnv_getInvalidUChars. */
static void converter_mode(UConverter *converter, const UChar *units, int32_t count,
                           char *output, int32_t capacity) {
    UErrorCode error = U_ZERO_ERROR;
    ucnv_reset(converter);
    const UChar *source = units;
    char *target = output;
    ucnv_fromUnicode(converter, &target, output + capacity, &source, units + count, NULL, 1,
                     &error);
    if (error == U_BUFFER_OVERFLOW_ERROR) {
        fail("ucnv_fromUnicode overflowed a buffer of 3 bytes per unit");
    }
    int32_t written = (int32_t)(target - output);
    if (!U_FAILURE(error)) {
        fputs("\"ok\":true,", stdout);
        print_bytes(output, written);
        fputs("}\n", stdout);
        return;
    }
    fputs("\"ok\":false,", stdout);
    UChar invalid[8];
    int8_t invalid_len = (int8_t)(sizeof invalid / sizeof invalid[0]);
    UErrorCode invalid_error = U_ZERO_ERROR;
    ucnv_getInvalidUChars(converter, invalid, &invalid_len, &invalid_error);
    long consumed = (long)(source - units);
    if (U_SUCCESS(invalid_error) && invalid_len <= consumed) {
        printf("\"error_at\":%ld,", consumed - invalid_len);
    }
    if (written > 0) {
        print_bytes(output, written);
        putchar(',');
    }
    printf("\"error\":\"%s\"}\n", u_errorName(error));
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "stop";
    const char *name;
    if (argc <= 2 && strcmp(mode, "stop") == 0) {
        name = "icu-u_strToUTF8";
    } else if (argc <= 2 && strcmp(mode, "substitute") == 0) {
        name = "icu-u_strToUTF8WithSub-FFFD";
    } else if (argc <= 2 && strcmp(mode, "converter") == 0) {
        name = "icu-ucnv_fromUnicode-STOP";
    } else if (argc <= 2 && strcmp(mode, "converter-substitute") == 0) {
        name = "icu-ucnv_fromUnicode-SUBSTITUTE";
    } else {
        fail("usage: icu-encode-adapter [stop|substitute|converter|converter-substitute]");
        return 2;
    }
    UErrorCode error = U_ZERO_ERROR;
    UConverter *converter = ucnv_open("UTF-8", &error);
    if (U_SUCCESS(error)) {
        int substitute = strcmp(mode, "converter-substitute") == 0;
        ucnv_setFromUCallBack(converter,
                              substitute ? UCNV_FROM_U_CALLBACK_SUBSTITUTE : UCNV_FROM_U_CALLBACK_STOP,
                              NULL, NULL, NULL, &error);
    }
    if (U_FAILURE(error)) {
        fprintf(stderr, "icu encoder adapter: opening the UTF-8 converter: %s\n", u_errorName(error));
        return 2;
    }

    UVersionInfo version_info;
    char version[U_MAX_VERSION_STRING_LENGTH];
    u_getVersion(version_info);
    u_versionToString(version_info, version);
    char substitution[8];
    int8_t substitution_len = (int8_t)sizeof substitution;
    UErrorCode substitution_error = U_ZERO_ERROR;
    ucnv_getSubstChars(converter, substitution, &substitution_len, &substitution_error);
    printf("{\"protocol\":\"utf8conf/2\",\"name\":\"%s\",\"version\":\"ICU %s", name, version);
    if (U_SUCCESS(substitution_error) && strncmp(mode, "converter", 9) == 0) {
        fputs(", substitution bytes", stdout);
        for (int8_t i = 0; i < substitution_len; i++) {
            printf(" %02X", (unsigned)(unsigned char)substitution[i]);
        }
    }
    fputs("\",\"encode\":\"utf16\"}\n", stdout);
    fflush(stdout);

    unsigned char *input = NULL;
    UChar *units = NULL;
    char *output = NULL;
    size_t input_capacity = 0, units_capacity = 0, output_capacity = 0;
    for (unsigned long long seq = 0;; seq++) {
        unsigned char header[4];
        size_t header_len = fread(header, 1, 4, stdin);
        if (header_len == 0 && feof(stdin)) {
            break;
        }
        if (header_len != 4) {
            fail("end of input inside a frame header");
        }
        size_t length = (size_t)header[0] | (size_t)header[1] << 8 | (size_t)header[2] << 16 |
                        (size_t)header[3] << 24;
        if (length % 2 != 0) {
            fail("a frame's length is not a whole number of UTF-16 code units");
        }
        /* The output takes at most 3 bytes per unit, and ICU counts it in an int32. */
        if (length / 2 > (size_t)(INT32_MAX - 16) / 3) {
            fail("a frame is too large for ICU's int32 lengths");
        }
        if (read_frame(&input, &input_capacity, length) != length) {
            fail("end of input inside a frame body");
        }
        int32_t count = (int32_t)(length / 2);
        units = reserve(units, &units_capacity, (size_t)count * sizeof(UChar) + sizeof(UChar));
        for (int32_t i = 0; i < count; i++) {
            units[i] = (UChar)(input[2 * i] | input[2 * i + 1] << 8);
        }
        int32_t capacity = 3 * count + 16;
        output = reserve(output, &output_capacity, (size_t)capacity);
        printf("{\"seq\":%llu,", seq);
        if (strncmp(mode, "converter", 9) == 0) {
            converter_mode(converter, units, count, output, capacity);
        } else {
            string_mode(units, count, strcmp(mode, "stop") == 0 ? U_SENTINEL : 0xFFFD, output,
                        capacity);
        }
        fflush(stdout);
    }
    ucnv_close(converter);
    free(input);
    free(units);
    free(output);
    u_cleanup();
    return 0;
}
