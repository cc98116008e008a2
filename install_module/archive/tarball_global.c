/*
 * pax global and GNU long name headers (see tarball_global.h). The header
 * fields are read the way GNU tar reads them, but more leniently wherever the two could
 * differ, so that any block GNU tar would apply as a global header is
 * checked here: a leading-spaces octal checksum matching the signed or
 * unsigned sum, and a size field that anything but plain octal makes us
 * refuse.
 */
#include "tarball_global.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#define TYPEFLAG_OFF 156
#define CHKSUM_OFF 148
#define CHKSUM_LEN 8
#define SIZE_OFF 124
#define SIZE_LEN 12
#define MAGIC_OFF 257
#define KEY_SHOWN_MAX 40
/* The headers GNU tar reads before a member's own: long name, long link, pax. */
#define EXTENSION_TYPES "LKxXg"

static const char *const harmless_keys[] = {
	"comment", "mtime", "atime", "ctime", "uid", "gid", "uname", "gname",
};

static const char refusal[] = "the tar archive has a pax global header that ";

/* Octal digits after leading spaces, at most len bytes; false when there are none. */
static bool octal_field(const unsigned char *p, size_t len, unsigned long long *out)
{
	size_t i = 0;
	bool any = false;

	*out = 0;
	while (i < len && p[i] == ' ')
		i++;
	for (; i < len && p[i] >= '0' && p[i] <= '7'; i++) {
		if (*out > (1ULL << 40))
			return false;
		*out = *out * 8 + (unsigned)(p[i] - '0');
		any = true;
	}
	return any;
}

/*
 * True when libarchive takes b for a header: every byte of the checksum
 * field a space, NUL or octal digit, and its leading-spaces octal number
 * the signed or unsigned sum. Only such blocks can stand where libarchive
 * reads headers, and as long as those read the same in GNU tar (what the
 * checks below ensure), GNU tar reads headers at the same places.
 */
static bool checksum_ok(const unsigned char *b)
{
	const unsigned char *p = b + CHKSUM_OFF;
	unsigned long long recorded;
	unsigned long usum = 0;
	long ssum = 0;
	size_t i;

	for (i = 0; i < CHKSUM_LEN; i++)
		if (p[i] != ' ' && p[i] != '\0' && (p[i] < '0' || p[i] > '7'))
			return false;
	if (!octal_field(p, CHKSUM_LEN, &recorded))
		return false;
	for (i = 0; i < TAR_BLOCK; i++) {
		bool in_sum = i >= CHKSUM_OFF && i < CHKSUM_OFF + CHKSUM_LEN;
		usum += in_sum ? ' ' : b[i];
		ssum += in_sum ? ' ' : (signed char)b[i];
	}
	return recorded == usum || (ssum >= 0 && recorded == (unsigned long)ssum);
}

/*
 * A number field every tar reader reads alike: spaces, octal digits, then
 * the end, a space or a NUL. libarchive stops at the first byte that is no
 * digit, GNU tar calls anything but a space or NUL there a damaged header
 * and skips ahead to the next block that looks like one, which may lie in
 * what libarchive took for member data.
 */
static bool number_plain(const unsigned char *p, size_t len)
{
	size_t i = 0, digits = 0;

	while (i < len && p[i] == ' ')
		i++;
	for (; i < len && p[i] >= '0' && p[i] <= '7'; i++)
		digits++;
	return digits > 0 && (i == len || p[i] == ' ' || p[i] == '\0');
}

/* Checksum and size as every tar reader reads them; a size may also be base-256. */
static bool numbers_plain(const unsigned char *b)
{
	return number_plain(b + CHKSUM_OFF, CHKSUM_LEN) &&
	       (b[SIZE_OFF] == 0x80 || number_plain(b + SIZE_OFF, SIZE_LEN));
}

/* The typeflag of b when it is an extension header with a matching checksum, else 0. */
static char header_type(const unsigned char *b)
{
	if (b[TYPEFLAG_OFF] == '\0' || strchr(EXTENSION_TYPES, b[TYPEFLAG_OFF]) == NULL ||
	    !checksum_ok(b))
		return 0;
	return (char)b[TYPEFLAG_OFF];
}

/*
 * A magic that starts "ustar" but is neither POSIX's "ustar\0" nor GNU's
 * "ustar  \0": libarchive still joins the prefix field to the name, GNU tar
 * does not, so the two see different member names.
 */
static bool magic_ambiguous(const unsigned char *b)
{
	return memcmp(b + MAGIC_OFF, "ustar", 5) == 0 && b[MAGIC_OFF + 5] != '\0' &&
	       memcmp(b + MAGIC_OFF, "ustar  \0", 8) != 0 && checksum_ok(b);
}

/* Plain octal only: base-256 sizes never occur in these headers and are refused. */
static bool header_size(const unsigned char *b, unsigned long long *size)
{
	return (b[SIZE_OFF] & 0x80) == 0 && octal_field(b + SIZE_OFF, SIZE_LEN, size);
}

static bool key_harmless(const unsigned char *key, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(harmless_keys) / sizeof(harmless_keys[0]); i++)
		if (strlen(harmless_keys[i]) == len && memcmp(harmless_keys[i], key, len) == 0)
			return true;
	return false;
}

static int malformed(struct pst_err *why, char type)
{
	return pst_fail(why, EBADMSG, "the tar archive has a pax %sheader that is malformed "
			"(make the tarball with tar)", type == 'g' ? "global " : "");
}

static bool digits_only(const unsigned char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return len > 0 && len < 20;
}

/* One record of a pax extended header: what GNU tar and libarchive read alike. */
static int extended_record_check(const unsigned char *key, size_t klen,
				 const unsigned char *value, size_t vlen, struct pst_err *why)
{
	if (klen >= 11 && memcmp(key, "GNU.sparse.", 11) == 0)
		return pst_fail(why, EBADMSG, "the tar archive holds a sparse file (%.*s); "
				"make the tarball without --sparse", (int)(klen > KEY_SHOWN_MAX ?
				KEY_SHOWN_MAX : klen), (const char *)key);
	if (klen == 4 && memcmp(key, "size", 4) == 0 && !digits_only(value, vlen))
		return pst_fail(why, EBADMSG, "the tar archive has a pax header whose size is not "
				"a plain decimal number, which tar programs read differently "
				"(make the tarball with tar)");
	return 0;
}

/* The records "LEN KEY=VALUE\n" of a pax header body of size bytes, of type type. */
static int body_check(const unsigned char *body, size_t size, char type, struct pst_err *why)
{
	size_t pos = 0, len, i, klen;
	const unsigned char *rec, *eq;
	int rc;

	while (pos < size) {
		rec = body + pos;
		for (len = 0, i = 0; pos + i < size && rec[i] >= '0' && rec[i] <= '9' && i < 6; i++)
			len = len * 10 + (size_t)(rec[i] - '0');
		if (i == 0 || rec[0] == '0' || pos + i >= size || rec[i] != ' ' || len <= i + 1 ||
		    len > size - pos || rec[len - 1] != '\n')
			return malformed(why, type);
		eq = memchr(rec + i + 1, '=', len - i - 1);
		if (eq == NULL || eq == rec + i + 1)
			return malformed(why, type);
		klen = (size_t)(eq - rec - i - 1);
		if (type == 'g' && !key_harmless(rec + i + 1, klen))
			return pst_fail(why, EBADMSG, "%ssets '%.*s'; GNU tar would apply it to every "
					"later member, so only comment, times and owners may be set "
					"globally (make the tarball without global pax keywords)",
					refusal, (int)(klen > KEY_SHOWN_MAX ? KEY_SHOWN_MAX : klen),
					(const char *)(rec + i + 1));
		rc = type == 'g' ? 0 : extended_record_check(rec + i + 1, klen, eq + 1,
							    (size_t)(rec + len - 1 - eq - 1), why);
		if (rc < 0)
			return rc;
		pos += len;
	}
	return 0;
}

/* True when a chain after an L/K header expects its next header here; drops passed ones. */
static bool chained_after_long(struct tar_global_scan *g)
{
	bool hit = false;
	size_t i = 0;

	while (i < g->n_after_long) {
		if (g->after_long[i] > g->offset) {
			i++;
			continue;
		}
		hit = hit || g->after_long[i] == g->offset;
		g->after_long[i] = g->after_long[--g->n_after_long];
	}
	return hit;
}

static int long_chain_check(struct tar_global_scan *g, const unsigned char *b, char type,
			    struct pst_err *why)
{
	bool chained = chained_after_long(g);
	unsigned long long size;

	if (type == 0 || (!chained && type != 'L' && type != 'K'))
		return 0;
	if (chained && (type == 'x' || type == 'X'))
		return pst_fail(why, EBADMSG, "the tar archive gives a member both a GNU long name "
				"or link and a pax extended header, which tar programs read "
				"differently (make the tarball with tar, in one format)");
	if (!header_size(b, &size))
		return pst_fail(why, EBADMSG, "the tar archive has a long name header with an "
				"unreadable size (make the tarball with tar)");
	if (g->n_after_long == TAR_LONG_CHAINS)
		return pst_fail(why, EBADMSG, "the tar archive has too many GNU long name headers "
				"close together (make the tarball with tar)");
	g->after_long[g->n_after_long++] = g->offset + TAR_BLOCK +
		(size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	return 0;
}

/* Collect the body of the pax header before; check it once complete. */
static int body_collect(struct tar_global_scan *g, const unsigned char *b, struct pst_err *why)
{
	size_t n = g->body_want - g->body_have;

	if (n > TAR_BLOCK)
		n = TAR_BLOCK;
	memcpy(g->body + g->body_have, b, n);
	g->body_have += n;
	if (g->body_have < g->body_want)
		return 0;
	g->body_want = 0;
	return body_check(g->body, g->body_have, g->body_type, why);
}

/* A pax header ('g', 'x' or 'X'): its body comes in the next blocks. */
static int pax_header(struct tar_global_scan *g, const unsigned char *b, char type,
		      struct pst_err *why)
{
	unsigned long long size;

	if (!header_size(b, &size))
		return pst_fail(why, EBADMSG, "the tar archive has a pax header with an unreadable "
				"size (make the tarball with tar)");
	if (type == 'g' && size > TAR_BLOCK)
		return pst_fail(why, EBADMSG, "%sis larger than %d bytes (only a short comment, "
				"times and owners may be set globally)", refusal, TAR_BLOCK);
	if (size > TAR_PAX_MAX)
		return pst_fail(why, EBADMSG, "the tar archive has a pax header larger than %d "
				"bytes (make the tarball with tar)", TAR_PAX_MAX);
	if (g->body_want > 0)
		return pst_fail(why, EBADMSG, "the tar archive has a pax header inside another "
				"one (make the tarball with tar)");
	g->body_want = (size_t)size;
	g->body_have = 0;
	g->body_type = type;
	return 0;
}

static int block_check(struct tar_global_scan *g, const unsigned char *b, struct pst_err *why)
{
	char type = header_type(b);
	int rc;

	if (g->body_want > 0) {
		rc = body_collect(g, b, why);
		if (rc < 0)
			return rc;
	}
	if (checksum_ok(b) && !numbers_plain(b))
		return pst_fail(why, EBADMSG, "the tar archive has a header whose checksum or size "
				"is not a plain octal number, which tar programs read differently "
				"(make the tarball with tar)");
	if (b[TYPEFLAG_OFF] == 'S' && checksum_ok(b))
		return pst_fail(why, EBADMSG, "the tar archive holds a sparse file (an old GNU "
				"sparse header); make the tarball without --sparse");
	if (magic_ambiguous(b))
		return pst_fail(why, EBADMSG, "the tar archive has a header whose ustar magic is "
				"damaged, which tar programs read differently (make the tarball "
				"with tar)");
	rc = long_chain_check(g, b, type, why);
	if (rc < 0 || (type != 'g' && type != 'x' && type != 'X'))
		return rc;
	return pax_header(g, b, type, why);
}

int tar_global_feed(struct tar_global_scan *g, const void *buf, size_t len, struct pst_err *why)
{
	const unsigned char *p = buf;
	size_t n;
	int rc = 0;

	while (len > 0 && rc == 0) {
		if (g->have == 0 && len >= TAR_BLOCK) {
			rc = block_check(g, p, why);
			g->offset += TAR_BLOCK;
			p += TAR_BLOCK;
			len -= TAR_BLOCK;
			continue;
		}
		n = TAR_BLOCK - g->have < len ? TAR_BLOCK - g->have : len;
		memcpy(g->block + g->have, p, n);
		g->have += n;
		p += n;
		len -= n;
		if (g->have == TAR_BLOCK) {
			g->have = 0;
			rc = block_check(g, g->block, why);
			g->offset += TAR_BLOCK;
		}
	}
	return rc;
}
