/*
 * utf8conf adapter for SQLite's UTF-8 handling (protocol utf8conf/1).
 *
 * Decoder: SQLite's UTF-8 reader (the READ_UTF8 step of sqlite3VdbeMemTranslate),
 * reached the way every program that stores UTF-8 and reads UTF-16 reaches it: each
 * input is bound as UTF-8 text with sqlite3_bind_text() to `SELECT ?1` on an
 * in-memory database and read back with sqlite3_column_text16(), which makes SQLite
 * translate it to UTF-16. SQLite does not validate UTF-8 text: whatever it does with
 * ill-formed bytes is what applications get.
 *
 * Fields:
 *   scalars  the UTF-16 code units of sqlite3_column_text16(), a high surrogate
 *            followed by a low one combined into one scalar value, any other
 *            surrogate reported as its own code unit
 *   valid    whether SQLite's own translation back (that UTF-16 bound with
 *            sqlite3_bind_text64() in native byte order and read with
 *            sqlite3_column_text()) gives the input bytes again: SQLite has no
 *            validity check, so this round trip is the only verdict it can give.
 *            SQLite drops a leading U+FEFF on the way back, so an input that
 *            starts with EF BB BF is never `valid`: the harness shows that as a
 *            rejected well-formed input, an artefact of this verdict.
 *
 * Cannot report: valid_up_to, error_len (SQLite reports no errors).
 *
 * Protocol: a hello line, then for each frame (4-byte little-endian length N, then N
 * bytes) exactly one JSON line, flushed; exit 0 at end of input.
 */

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what) {
    fprintf(stderr, "sqlite adapter: %s\n", what);
    exit(2);
}

static int read_exactly(unsigned char *buffer, size_t length) {
    size_t got = fread(buffer, 1, length, stdin);
    return got == length;
}

/* SQLITE_UTF16LE or SQLITE_UTF16BE, whichever is this machine's (column_text16's). */
static unsigned char native_utf16(void) {
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1 ? SQLITE_UTF16LE : SQLITE_UTF16BE;
}

static sqlite3_stmt *prepare(sqlite3 *db) {
    sqlite3_stmt *statement = NULL;
    if (sqlite3_prepare_v2(db, "SELECT ?1", -1, &statement, NULL) != SQLITE_OK) {
        die(sqlite3_errmsg(db));
    }
    return statement;
}

static void answer(sqlite3_stmt *to16, sqlite3_stmt *to8, const unsigned char *data, int length) {
    static const char empty[1] = "";
    const char *text = length == 0 ? empty : (const char *)data;
    if (sqlite3_bind_text(to16, 1, text, length, SQLITE_TRANSIENT) != SQLITE_OK ||
        sqlite3_step(to16) != SQLITE_ROW) {
        die("binding the UTF-8 text failed");
    }
    const uint16_t *units = sqlite3_column_text16(to16, 0);
    int unit_count = sqlite3_column_bytes16(to16, 0) / 2;
    if (units == NULL && unit_count > 0) {
        die("out of memory translating to UTF-16");
    }
    static const uint16_t no_units[1] = {0};
    if (sqlite3_bind_text64(to8, 1, units ? (const char *)units : (const char *)no_units,
                            (sqlite3_uint64)unit_count * 2, SQLITE_TRANSIENT,
                            native_utf16()) != SQLITE_OK ||
        sqlite3_step(to8) != SQLITE_ROW) {
        die("binding the UTF-16 text failed");
    }
    const unsigned char *back = sqlite3_column_text(to8, 0);
    int back_length = sqlite3_column_bytes(to8, 0);
    int valid = back_length == length && (length == 0 || memcmp(back, data, (size_t)length) == 0);

    printf("{\"valid\":%s,\"scalars\":[", valid ? "true" : "false");
    const char *separator = "";
    for (int i = 0; i < unit_count; i++) {
        uint32_t scalar = units[i];
        if (scalar >= 0xD800 && scalar <= 0xDBFF && i + 1 < unit_count &&
            units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (units[i + 1] - 0xDC00u);
            i++;
        }
        printf("%s%u", separator, (unsigned)scalar);
        separator = ",";
    }
    printf("]}\n");
    fflush(stdout);
    sqlite3_reset(to16);
    sqlite3_reset(to8);
    sqlite3_clear_bindings(to16);
    sqlite3_clear_bindings(to8);
}

int main(int argc, char **argv) {
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: sqlite-adapter\n");
        return 2;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
        die("cannot open an in-memory database");
    }
    sqlite3_stmt *to16 = prepare(db);
    sqlite3_stmt *to8 = prepare(db);
    printf("{\"protocol\":\"utf8conf/1\",\"name\":\"sqlite\",\"version\":\"SQLite %s\"}\n",
           sqlite3_libversion());
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
        if (length > (uint32_t)sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1)) {
            die("frame longer than SQLite's string length limit");
        }
        unsigned char *data = malloc(length ? length : 1);
        if (data == NULL) {
            die("out of memory");
        }
        if (!read_exactly(data, length)) {
            die("end of input inside a frame body");
        }
        answer(to16, to8, data, (int)length);
        free(data);
    }
    sqlite3_finalize(to16);
    sqlite3_finalize(to8);
    sqlite3_close(db);
    return 0;
}
