/*
 * utf8conf adapter for libxml2's UTF-8 reader (protocol utf8conf/1).
 *
 * Decoder: xmlGetUTF8Char() from libxml2's xmlstring.h, "Read the first UTF8
 * character from utf", the function libxml2's string utilities and many of its
 * users call to step through UTF-8 text.
 *
 * Fields:
 *   valid        xmlGetUTF8Char() returned a character (not -1) at every position up
 *                to the end of the input, each call given the bytes left as its
 *                length limit and stepping by the length it reported
 *   valid_up_to  the offset at which it first returned -1
 *   scalars      only when valid: the characters it returned
 *   error        "xmlGetUTF8Char returned -1"
 *
 * Cannot report: error_len (on error libxml2 sets the length to 0, so it does not
 * say how many bytes it rejected); a lossy decode (it has no replacement mode).
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line, flushed; exit 0 at end of input.
 */

#include <libxml/xmlstring.h>
#include <libxml/xmlversion.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void die(const char *what) {
    fprintf(stderr, "libxml2 adapter: %s\n", what);
    exit(2);
}

static void answer(const unsigned char *data, size_t length, int *scalars) {
    size_t offset = 0;
    size_t count = 0;
    while (offset < length) {
        size_t left = length - offset;
        int limit = left > INT_MAX ? INT_MAX : (int)left;
        int consumed = limit;
        int value = xmlGetUTF8Char(data + offset, &consumed);
        if (value < 0 || consumed <= 0 || consumed > limit) {
            printf("{\"valid\":false,\"valid_up_to\":%zu,\"error\":\"xmlGetUTF8Char returned %d\"}\n",
                   offset, value);
            fflush(stdout);
            return;
        }
        scalars[count++] = value;
        offset += (size_t)consumed;
    }
    printf("{\"valid\":true,\"scalars\":[");
    for (size_t i = 0; i < count; i++) {
        printf(i == 0 ? "%d" : ",%d", scalars[i]);
    }
    printf("]}\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: libxml2-adapter\n");
        return 2;
    }
    LIBXML_TEST_VERSION
    printf("{\"protocol\":\"utf8conf/1\",\"name\":\"libxml2\",\"version\":\"libxml2 %s\"}\n",
           LIBXML_DOTTED_VERSION);
    fflush(stdout);
    for (;;) {
        unsigned char header[4];
        size_t got = fread(header, 1, 4, stdin);
        if (got == 0) {
            break;
        }
        if (got != 4) {
            die("end of input inside a frame header");
        }
        uint32_t length = (uint32_t)header[0] | (uint32_t)header[1] << 8 |
                          (uint32_t)header[2] << 16 | (uint32_t)header[3] << 24;
        unsigned char *data = malloc(length ? length : 1);
        int *scalars = malloc(sizeof(int) * (length ? length : 1));
        if (data == NULL || scalars == NULL) {
            die("out of memory");
        }
        if (fread(data, 1, length, stdin) != length) {
            die("end of input inside a frame body");
        }
        answer(data, length, scalars);
        free(data);
        free(scalars);
    }
    return 0;
}
