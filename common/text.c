/*
 * The text checks every component shares: UTF-8, names, control characters
 * (text.h). Pure functions; they must never accept what another copy would refuse.
 */
#include "text.h"

#include <string.h>

size_t utf8_seq_len(const unsigned char *s, size_t avail)
{
	unsigned int cp;
	size_t len;
	size_t i;

	if (avail == 0)
		return 0;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (avail < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000))
		return 0;
	if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

bool utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (len > 0) {
		n = utf8_seq_len(p, len);
		if (n == 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

static bool is_alnum_ascii(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

bool name_is_module(const char *s)
{
	size_t i;

	if (s == NULL || !is_alnum_ascii(s[0]))
		return false;
	for (i = 1; s[i] != '\0'; i++) {
		if (i >= NAME_MODULE_MAX)
			return false;
		if (!is_alnum_ascii(s[i]) && strchr("._+-", s[i]) == NULL)
			return false;
	}
	return true;
}

bool name_is_user(const char *s)
{
	size_t i;

	if (s == NULL || !((s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return false;
	for (i = 1; s[i] != '\0'; i++) {
		if (i >= NAME_USER_MAX)
			return false;
		if (s[i] == '$' && s[i + 1] == '\0')
			return true;
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
		      s[i] == '_' || s[i] == '.' || s[i] == '-'))
			return false;
	}
	return true;
}

bool str_copy(char *dst, size_t dstlen, const char *src)
{
	size_t n = strlen(src);

	if (dstlen == 0)
		return false;
	if (n >= dstlen) {
		dst[0] = '\0';
		return false;
	}
	memcpy(dst, src, n + 1);
	return true;
}

bool utf8_seq_is_control(const unsigned char *s, size_t seq)
{
	return (seq == 1 && (s[0] < 0x20 || s[0] == 0x7f)) ||
	       (seq == 2 && s[0] == 0xc2 && s[1] < 0xa0);
}

bool str_has_control(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t avail = strlen(s);
	size_t n;

	while (avail > 0) {
		n = utf8_seq_len(p, avail);
		if (n == 0) {
			/* A stray byte: 0x80-0x9F is C1 to a terminal that reads 8-bit controls. */
			if (p[0] >= 0x80 && p[0] <= 0x9f)
				return true;
			n = 1;
		} else if (utf8_seq_is_control(p, n)) {
			return true;
		}
		p += n;
		avail -= n;
	}
	return false;
}

bool str_is_printable(const char *s)
{
	return utf8_valid(s, strlen(s)) && !str_has_control(s);
}

bool str_is_digits(const char *s)
{
	if (s == NULL || *s == '\0')
		return false;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}
