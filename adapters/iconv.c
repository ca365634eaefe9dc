/*
 * utf8conf adapter for glibc's iconv UTF-8 decoder (protocol utf8conf/1).
 *
 * Decoder: iconv(3) from the C library, converting from "UTF-8". The converter is
 * opened once and reset with iconv(cd, NULL, NULL, NULL, NULL) before every input.
 *
 * Target (first argument):
 *   utf-32le  iconv_open("UTF-32LE", "UTF-8"), the default: what a program that
 *             wants code points from iconv asks for. On glibc this is two steps,
 *             UTF-8 -> the library's internal UCS-4, then UCS-4 -> UTF-32LE, and
 *             the second step rejects values that are not Unicode scalar values;
 *             iconv still reports the input position of the offending sequence.
 *   wchar_t   iconv_open("WCHAR_T", "UTF-8"). On glibc WCHAR_T is the internal
 *             UCS-4 form itself, so this is glibc's UTF-8 decoding step alone,
 *             without the second step's checks (the same step the C library's
 *             UTF-8 locales use for mbrtowc and friends).
 *
 * Fields:
 *   valid        iconv() returned a count rather than (size_t)-1, and the final
 *                flush call succeeded
 *   valid_up_to  on failure, how far iconv() advanced the input pointer: iconv
 *                stops in front of the sequence it cannot convert
 *   error_len    null when errno is EINVAL, which iconv(3) defines as "an
 *                incomplete multibyte sequence has been encountered in the input"
 *                at its end; ABSENT when errno is EILSEQ ("an invalid multibyte
 *                sequence"), because iconv does not say how long that sequence is
 *   scalars      only when valid: the UTF-32LE or wchar_t values written. iconv has no
 *                replacement mode (the //IGNORE suffix skips bytes, which is a
 *                different policy), so no U+FFFD is ever reported for it
 *   error        "EILSEQ: <strerror>" or "EINVAL: <strerror>"
 *
 * Cannot report: the length of an invalid sequence; anything after the first
 * error; a lossy decode.
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line, flushed; exit 0 at end of input.
 */

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

/* Reads exactly `length` bytes; returns how many were read before end of input. */
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

/* Grows *buffer to at least `needed` bytes, exiting if memory runs out. */
static void reserve(unsigned char **buffer, size_t *capacity, size_t needed) {
    if (*capacity >= needed) {
        return;
    }
    size_t grown = *capacity ? *capacity : 256;
    while (grown < needed) {
        grown *= 2;
    }
    unsigned char *resized = realloc(*buffer, grown);
    if (resized == NULL) {
        fprintf(stderr, "iconv adapter: out of memory for %zu bytes\n", needed);
        exit(1);
    }
    *buffer = resized;
    *capacity = grown;
}

/* Reads the `index`th 4-byte unit of the output as a number. */
static uint32_t output_unit(const unsigned char *output, size_t index, int is_wchar) {
    if (is_wchar) {
        wchar_t unit;
        memcpy(&unit, output + index * sizeof(wchar_t), sizeof(wchar_t));
        return (uint32_t)unit;
    }
    const unsigned char *bytes = output + index * 4;
    return (uint32_t)bytes[0] | (uint32_t)bytes[1] << 8 | (uint32_t)bytes[2] << 16 |
           (uint32_t)bytes[3] << 24;
}

int main(int argc, char **argv) {
    const char *target = argc > 1 ? argv[1] : "utf-32le";
    int is_wchar;
    if (argc > 2) {
        target = "";
    }
    if (strcmp(target, "utf-32le") == 0) {
        is_wchar = 0;
    } else if (strcmp(target, "wchar_t") == 0) {
        is_wchar = 1;
    } else {
        fprintf(stderr, "usage: iconv-adapter [utf-32le|wchar_t]\n");
        return 2;
    }
    const char *iconv_target = is_wchar ? "WCHAR_T" : "UTF-32LE";
    size_t unit_size = is_wchar ? sizeof(wchar_t) : 4;
    iconv_t converter = iconv_open(iconv_target, "UTF-8");
    if (converter == (iconv_t)-1) {
        fprintf(stderr, "iconv adapter: iconv_open(\"%s\", \"UTF-8\"): %s\n", iconv_target,
                strerror(errno));
        return 1;
    }
#ifdef __GLIBC__
    const char *version = gnu_get_libc_version();
#else
    const char *version = "unknown (not glibc)";
#endif
    printf("{\"protocol\":\"utf8conf/1\",\"name\":\"%s\",\"version\":\"glibc %s\"}\n",
           is_wchar ? "iconv-wchar" : "iconv", version);
    fflush(stdout);

    unsigned char *input = NULL, *output = NULL;
    size_t input_capacity = 0, output_capacity = 0;
    for (;;) {
        unsigned char header[4];
        size_t header_len = read_exactly(header, 4);
        if (header_len == 0) {
            return 0;
        }
        if (header_len != 4) {
            fprintf(stderr, "iconv adapter: end of input inside a frame header\n");
            return 2;
        }
        size_t length = (size_t)header[0] | (size_t)header[1] << 8 | (size_t)header[2] << 16 |
                        (size_t)header[3] << 24;
        reserve(&input, &input_capacity, length + 1);
        if (read_exactly(input, length) != length) {
            fprintf(stderr, "iconv adapter: end of input inside a frame body\n");
            return 2;
        }
        /* Every UTF-8 byte yields at most one unit; +1 leaves room for a flush. */
        reserve(&output, &output_capacity, (length + 1) * unit_size);

        iconv(converter, NULL, NULL, NULL, NULL);
        char *in_next = (char *)input;
        size_t in_left = length;
        char *out_next = (char *)output;
        size_t out_left = output_capacity;
        size_t converted = iconv(converter, &in_next, &in_left, &out_next, &out_left);
        int failure = 0;
        if (converted == (size_t)-1) {
            failure = errno;
        } else if (iconv(converter, NULL, NULL, &out_next, &out_left) == (size_t)-1) {
            failure = errno;
        }
        size_t stopped_at = (size_t)((unsigned char *)in_next - input);

        if (failure == 0) {
            size_t count = (size_t)(out_next - (char *)output) / unit_size;
            fputs("{\"valid\":true,\"scalars\":[", stdout);
            for (size_t i = 0; i < count; i++) {
                printf(i ? ",%lu" : "%lu", (unsigned long)output_unit(output, i, is_wchar));
            }
            fputs("]}\n", stdout);
        } else if (failure == EILSEQ) {
            printf("{\"valid\":false,\"valid_up_to\":%zu,\"error\":\"EILSEQ: %s\"}\n", stopped_at,
                   strerror(failure));
        } else if (failure == EINVAL) {
            printf("{\"valid\":false,\"valid_up_to\":%zu,\"error_len\":null,\"error\":\"EINVAL: %s\"}\n",
                   stopped_at, strerror(failure));
        } else {
            /* E2BIG cannot happen with the buffer sized above; anything else is a
             * failure of the library, not an answer about the input. */
            fflush(stdout);
            fprintf(stderr, "iconv adapter: iconv failed unexpectedly: %s\n", strerror(failure));
            return 1;
        }
        fflush(stdout);
    }
}
