/* What may be shown raw, and a safe copy of the rest (text_show.h). */
#include "text_show.h"

#include <stdio.h>
#include <string.h>

#include "text.h"
#include "unicode.h"

bool codepoint_is_hidden(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
	       codepoint_prints_nothing(cp);
}

size_t text_printable_len(const unsigned char *s, size_t avail)
{
	size_t n = utf8_seq_len(s, avail);

	/* C0, DEL and C1: the same test as str_has_control() (text.c). */
	if (n == 0 || utf8_seq_is_control(s, n))
		return 0;
	if (n > 1 && codepoint_is_hidden(utf8_decode(s, n)))
		return 0;
	return n;
}

bool text_printable(const char *s, size_t len)
{
	size_t i = 0, n;

	while (i < len) {
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0)
			return false;
		i += n;
	}
	return true;
}

/* The safe form of the character at s (n input bytes) in unit; its length. */
static size_t safe_unit(const unsigned char *s, size_t n, bool printable, enum text_unsafe how,
			char unit[17])
{
	size_t i;

	if (printable && !(how == TEXT_ESCAPE && s[0] == '\\')) {
		memcpy(unit, s, n);
		return n;
	}
	if (printable) {
		memcpy(unit, "\\\\", 2);
		return 2;
	}
	if (how == TEXT_REPLACE) {
		memset(unit, '?', n);
		return n;
	}
	for (i = 0; i < n; i++)
		snprintf(unit + 4 * i, 5, "\\x%02x", s[i]);
	return 4 * n;
}

bool text_safe_copy(char *dst, size_t dstlen, const char *src, size_t len, enum text_unsafe how)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0, n, seq, w;
	char unit[17];

	if (dstlen == 0)
		return len == 0;
	while (i < len) {
		n = text_printable_len(s + i, len - i);
		/* An unprintable character is replaced whole: a C1 sequence is two '?'. */
		seq = n > 0 ? n : utf8_seq_len(s + i, len - i);
		if (seq == 0)
			seq = 1;
		w = safe_unit(s + i, seq, n > 0, how, unit);
		if (o + w >= dstlen)
			break;
		memcpy(dst + o, unit, w);
		o += w;
		i += seq;
	}
	dst[o] = '\0';
	return i >= len;
}
