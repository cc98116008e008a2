/*
 * Unicode properties the components must agree on, from libunistring's
 * tables: never a hand-written list of code points.
 */
#ifndef POSTERN_UNICODE_H
#define POSTERN_UNICODE_H

#include <stdbool.h>
#include <stddef.h>

/*
 * True for a code point that prints as nothing: the Unicode property
 * Default_Ignorable_Code_Point (soft hyphen, zero-width spaces and joiners,
 * bidi marks, variation selectors, tags...), and the Hangul fillers U+115F,
 * U+1160, U+3164 and U+FFA0 by name as well: they render blank, and must
 * stay refused even with a libunistring whose tables lack them. Two names
 * that look the same in a listing or a log could differ by one of these.
 */
bool codepoint_prints_nothing(unsigned cp);

/* The code point of the well-formed n-byte UTF-8 sequence at s (n as utf8_seq_len() gave it). */
unsigned utf8_decode(const unsigned char *s, size_t n);

#endif
