/*
 * Text safe to show a person: the one test of what may reach a terminal, an
 * audit record, a mail, a JSON value or the wire raw, and one way to make a
 * copy that is safe. Every component that shows text it did not write asks
 * here, so no copy lets through what another would escape.
 *
 * Not printable: C0 controls (TAB and LF included), DEL, any byte that is
 * not part of valid UTF-8 (0x80-0x9F among them, C1 to a terminal that reads
 * 8-bit controls), C1 as UTF-8 (U+0080-U+009F: U+009B is CSI), the line and
 * paragraph separators U+2028/U+2029, and code points that print nothing or
 * reorder the line (bidi controls, zero-width characters, every format
 * character of category Cf; common/unicode.h).
 *
 * A file of its own, apart from text.c: this one needs libunistring, which
 * pam_postern.so (linked with text.o) must not load.
 */
#ifndef POSTERN_TEXT_SHOW_H
#define POSTERN_TEXT_SHOW_H

#include <stdbool.h>
#include <stddef.h>

/* A code point that is valid UTF-8 but must not be shown raw (C1, U+2028/9, invisible). */
bool codepoint_is_hidden(unsigned cp);

/* The byte length of the printable character at s, or 0 when it is not printable. */
size_t text_printable_len(const unsigned char *s, size_t avail);

/* Whether every character of s[0..len) is printable. */
bool text_printable(const char *s, size_t len);

enum text_unsafe {
	TEXT_REPLACE,   /* each byte of an unprintable character becomes '?' */
	TEXT_ESCAPE,    /* each byte becomes \xNN, and a backslash is doubled */
};

/*
 * A printable copy of src[0..len) in dst (dstlen bytes, always
 * NUL-terminated when dstlen > 0), cut only between characters; true when
 * all of src fit.
 */
bool text_safe_copy(char *dst, size_t dstlen, const char *src, size_t len, enum text_unsafe how);

#endif
