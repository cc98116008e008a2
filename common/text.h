/* Validation of the few kinds of text every component must agree on. */
#ifndef POSTERN_TEXT_H
#define POSTERN_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "postern_limits.h"

/*
 * Length of the well-formed UTF-8 sequence at s (1..4), or 0 when the bytes
 * there are not valid UTF-8: overlong forms, surrogates, code points above
 * U+10FFFF, and sequences cut short by avail are all invalid.
 */
size_t utf8_seq_len(const unsigned char *s, size_t avail);

/* True when all len bytes of s are valid UTF-8. */
bool utf8_valid(const char *s, size_t len);

/* A module name: [A-Za-z0-9][A-Za-z0-9._+-]*, at most NAME_MODULE_MAX bytes. */
bool name_is_module(const char *s);

/*
 * A user name as Debian's adduser accepts it by default and as no shell or
 * option parser can misread: [a-z_][a-z0-9_.-]*, optional trailing '$',
 * at most NAME_USER_MAX bytes.
 */
bool name_is_user(const char *s);

/* Copy src into dst of size dstlen; false (dst emptied) when it does not fit. */
bool str_copy(char *dst, size_t dstlen, const char *src);

/*
 * The seq bytes at s (seq from utf8_seq_len, 1..4) are a control character:
 * C0 (U+0000-U+001F), DEL (U+007F) or C1 (U+0080-U+009F, C2 80 to C2 9F).
 * For code that walks UTF-8 itself; str_has_control applies it to a string.
 */
bool utf8_seq_is_control(const unsigned char *s, size_t seq);

/*
 * The one rule for "a control character" in postern: C0 (U+0000-U+001F),
 * DEL (U+007F) and C1 (U+0080-U+009F). C1 counts both as UTF-8 (C2 80 to
 * C2 9F) and as a stray byte 0x80-0x9F that is not part of valid UTF-8, which
 * a terminal reading 8-bit controls would obey. s need not be valid UTF-8.
 */
bool str_has_control(const char *s);

/* True when s is valid UTF-8 without control characters (str_has_control):
 * safe to print to a terminal and to log. */
bool str_is_printable(const char *s);

/* True when s (NUL-terminated) contains only ASCII digits and is non-empty. */
bool str_is_digits(const char *s);

#endif
