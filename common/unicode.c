/* Unicode properties from libunistring (see unicode.h); no code point table of our own. */
#include "unicode.h"

#include <unictype.h>

bool codepoint_prints_nothing(unsigned cp)
{
	/* Format characters (Cf) beyond the default-ignorable ones too: the
	 * Arabic number signs U+0600-0605 and U+06DD, U+070F, U+08E2, U+110BD,
	 * the interlinear annotation marks U+FFF9-FFFB alter what is shown. */
	return uc_is_property_default_ignorable_code_point((ucs4_t)cp) ||
	       uc_is_general_category((ucs4_t)cp, UC_CATEGORY_Cf) ||
	       cp == 0x115f || cp == 0x1160 || cp == 0x3164 || cp == 0xffa0;
}

unsigned utf8_decode(const unsigned char *s, size_t n)
{
	unsigned cp;
	size_t i;

	if (n <= 1)
		return n == 1 ? s[0] : 0;
	cp = s[0] & (0xffu >> (n + 1));
	for (i = 1; i < n; i++)
		cp = (cp << 6) | (s[i] & 0x3fu);
	return cp;
}
