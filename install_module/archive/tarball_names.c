/*
 * Member names as other file systems read them, and member modes (see
 * tarball_names.h).
 *
 * Design note. tarball_member_check() keeps a member inside
 * "<module>-<version>/" as Linux reads names: byte for byte. Mirrors and
 * users unpack releases on macOS and Windows too, and on ext4 with
 * casefold, where "demo-1.0/LINK/x" is written through the symlink
 * "demo-1.0/link", "x." is "x", and a component HFS+ reads as ".." after
 * dropping a zero-width joiner climbs out. So every name is also looked at
 * in a folded form: HFS+'s ignored code points (Default_Ignorable_Code_Point)
 * dropped, NTFS's trailing dots and spaces stripped, then NFD, case folded
 * and NFC, by libunistring (u8_normalize, u8_casefold), never by a table of
 * our own. Like git's protectHFS/protectNTFS (CVE-2014-9390), the rules
 * err on the side of refusing.
 * MUST NOT: accept anything tarball_member_check() refuses; read data.
 */
#define _GNU_SOURCE /* tdestroy() */
#include "tarball_names.h"

#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unicase.h>
#include <uninorm.h>

#include "text.h"
#include "unicode.h"

/* The longest name tarball_member_check() lets through. */
#define NAME_MAX_BYTES 4096

struct folded {
	char *key;       /* the folded name, the tree's order */
	char *name;      /* the member's own name, without a trailing '/' */
	enum tarball_member_kind kind;
};

struct tarball_names {
	void *tree;      /* tsearch() tree of struct folded */
};

bool tarball_member_mode_check(const char *name, enum tarball_member_kind kind, unsigned perm,
			       struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE];
	const char *what = NULL;

	if ((perm & S_ISUID) != 0)
		what = "set-uid";
	else if ((perm & S_ISGID) != 0)
		what = "set-gid";
	else if ((perm & S_IWOTH) != 0 && kind != TARBALL_MEMBER_SYMLINK)
		what = "world-writable";
	if (what == NULL)
		return true;
	return pst_refuse(why, "member %s has mode %04o (%s): a release may not hold set-uid, "
		      "set-gid or world-writable members, which whoever unpacks it as root "
		      "would get (chmod u-s,g-s,o-w and make the tarball again)",
		      tarball_shown(name, strlen(name), sbuf), perm & 07777, what);
}

/*
 * Copy the component c (len bytes) into out without the code points HFS+
 * ignores; returns the length.
 */
static size_t drop_ignored(const char *c, size_t len, char *out)
{
	size_t i = 0, o = 0, n;

	while (i < len) {
		n = utf8_seq_len((const unsigned char *)c + i, len - i);
		if (n == 0)
			n = 1;
		if (!codepoint_prints_nothing(utf8_decode((const unsigned char *)c + i, n))) {
			memcpy(out + o, c + i, n);
			o += n;
		}
		i += n;
	}
	return o;
}

/* len without the trailing dots and spaces NTFS strips. */
static size_t ntfs_trimmed(const char *s, size_t len)
{
	while (len > 0 && (s[len - 1] == '.' || s[len - 1] == ' '))
		len--;
	return len;
}

/* True when NTFS may take c for an 8.3 short name: 1-6 characters, '~', digits, short extension. */
static bool looks_short_name(const char *c, size_t len)
{
	const char *tilde = memchr(c, '~', len), *dot;
	size_t i, base, digits = 0;

	if (tilde == NULL || tilde == c || tilde - c > 6)
		return false;
	for (i = 0; i < (size_t)(tilde - c); i++)
		if ((unsigned char)c[i] >= 0x80 || c[i] == '.')
			return false;
	for (i = (size_t)(tilde - c) + 1; i < len && c[i] >= '0' && c[i] <= '9'; i++)
		digits++;
	base = i;
	if (digits == 0 || c[(size_t)(tilde - c) + 1] == '0' || base > 8)
		return false;
	if (base == len)
		return true;
	dot = c + base;
	return *dot == '.' && len - base - 1 <= 3 && memchr(dot + 1, '.', len - base - 1) == NULL;
}

static bool is_exactly(const char *s, size_t len, const char *word)
{
	return len == strlen(word) && memcmp(s, word, len) == 0;
}

/* One component of what (a name or a link target) of member. */
static bool component_portable(const char *member, const char *what, const char *c, size_t len,
			       struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE], cbuf[TARBALL_SHOWN_SIZE];
	char visible[NAME_MAX_BYTES + 1];
	const char *colon = memchr(c, ':', len);
	size_t n, base = colon != NULL ? (size_t)(colon - c) : len;

	if (len == 0 || is_exactly(c, len, ".") || is_exactly(c, len, ".."))
		return true;
	for (; colon != NULL; colon = memchr(colon + 1, ':', len - (size_t)(colon + 1 - c)))
		if ((size_t)(colon + 1 - c) < len && colon[1] == '$')
			return pst_refuse(why, "member %s: its %s has '%s', an NTFS stream type "
				      "(\"x::$DATA\" is \"x\" itself on Windows); rename it",
				      tarball_shown(member, strlen(member), sbuf), what,
				      tarball_shown(c, len, cbuf));
	n = drop_ignored(c, base, visible);
	if (n == 0 || ntfs_trimmed(visible, n) == 0 || is_exactly(visible, n, ".") ||
	    is_exactly(visible, n, ".."))
		return pst_refuse(why, "member %s: its %s has the component '%s', which macOS or "
			      "Windows read as '.', '..' or nothing (invisible characters, trailing "
			      "dots or spaces, or a ':' stream); rename it",
			      tarball_shown(member, strlen(member), sbuf), what,
			      tarball_shown(c, len, cbuf));
	if (looks_short_name(c, len))
		return pst_refuse(why, "member %s: its %s has the component '%s', which looks like "
			      "a Windows 8.3 short name and may name another member there "
			      "(like GIT~1 for .git); rename it",
			      tarball_shown(member, strlen(member), sbuf), what, tarball_shown(c, len, cbuf));
	return true;
}

static bool path_portable(const char *member, const char *what, const char *path,
			  struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE];
	const char *p = path, *slash;
	size_t len;

	if (strchr(path, '\\') != NULL)
		return pst_refuse(why, "member %s: its %s holds a backslash, which Windows reads as "
			      "a directory separator; rename it", tarball_shown(member, strlen(member), sbuf), what);
	if (strlen(path) > NAME_MAX_BYTES)
		return pst_refuse(why, "member %s: its %s is longer than %d bytes",
			      tarball_shown(member, strlen(member), sbuf), what, NAME_MAX_BYTES);
	for (;;) {
		slash = strchr(p, '/');
		len = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (!component_portable(member, what, p, len, why))
			return false;
		if (slash == NULL)
			return true;
		p = slash + 1;
	}
}

bool tarball_name_portable_check(const char *name, enum tarball_member_kind kind,
				 const char *linkname, struct pst_err *why)
{
	if (!path_portable(name, "name", name, why))
		return false;
	if (kind == TARBALL_MEMBER_SYMLINK || kind == TARBALL_MEMBER_HARDLINK)
		return path_portable(name, kind == TARBALL_MEMBER_SYMLINK ? "link target" :
				     "hard link target", linkname != NULL ? linkname : "", why);
	return true;
}

/*
 * Most names are ASCII, where full case folding maps A-Z to a-z and nothing
 * else and every normalisation form changes nothing: fold such a name in
 * place and spare the two library calls, which took 1.4 G of the 3.5 G
 * instructions of checking a tarball of 50,000 ASCII-named members.
 * False, with s untouched, when a byte is not ASCII.
 */
static bool ascii_fold(char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if ((unsigned char)s[i] >= 0x80)
			return false;
	for (i = 0; i < len; i++)
		if (s[i] >= 'A' && s[i] <= 'Z')
			s[i] = (char)(s[i] - 'A' + 'a');
	return true;
}

/*
 * The folded form of path (a trailing '/' dropped): per component the
 * ignored code points dropped and NTFS's trailing dots and spaces
 * stripped, then NFD, case folded, NFC. malloc'd and NUL-terminated, or
 * NULL with errno set: ENOMEM, or EILSEQ when path is not UTF-8 (which
 * tarball_member_check() has refused already).
 */
static char *fold_key(const char *path)
{
	size_t len = strlen(path), i = 0, o = 0, clen, nfd_len = 0, key_len = 0;
	char *plain = malloc(len + 1), *key = NULL;
	uint8_t *nfd = NULL, *folded = NULL;

	if (plain == NULL)
		return NULL;
	while (len > 0 && path[len - 1] == '/')
		len--;
	while (i < len) {
		clen = strcspn(path + i, "/");
		if (clen > len - i)
			clen = len - i;
		o += ntfs_trimmed(plain + o, drop_ignored(path + i, clen, plain + o));
		i += clen;
		if (i < len) {
			plain[o++] = '/';
			i++;
		}
	}
	plain[o] = '\0';
	if (ascii_fold(plain, o))
		return plain;
	nfd = u8_normalize(UNINORM_NFD, (const uint8_t *)plain, o, NULL, &nfd_len);
	if (nfd != NULL)
		folded = u8_casefold(nfd, nfd_len, NULL, UNINORM_NFC, NULL, &key_len);
	if (folded != NULL && memchr(folded, '\0', key_len) == NULL)
		key = strndup((const char *)folded, key_len);
	else if (folded != NULL)
		errno = EILSEQ;
	free(folded);
	free(nfd);
	free(plain);
	return key;
}

static int folded_compare(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	return strcmp(x->key, y->key);
}

static void folded_free(void *p)
{
	struct folded *f = p;

	free(f->key);
	free(f->name);
	free(f);
}

struct tarball_names *tarball_names_new(void)
{
	return calloc(1, sizeof(struct tarball_names));
}

void tarball_names_free(struct tarball_names *names)
{
	if (names == NULL)
		return;
	tdestroy(names->tree, folded_free);
	free(names);
}

static int fold_failed(const char *member, struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE];
	if (errno == ENOMEM)
		return -ENOMEM;
	pst_refuse(why, "member %s: its name or link target is not UTF-8",
		   tarball_shown(member, strlen(member), sbuf));
	return -EBADMSG;
}

/* The earlier member whose folded name is key, or NULL. */
static struct folded *folded_find(struct tarball_names *names, char *key)
{
	struct folded probe = { key, NULL, TARBALL_MEMBER_UNKNOWN };
	struct folded **hit = tfind(&probe, &names->tree, folded_compare);

	return hit != NULL ? *hit : NULL;
}

/*
 * Refuse when a folded prefix of key (key itself too when whole) is an
 * earlier symlink member. key is modified and restored.
 */
static int through_symlink_check(struct tarball_names *names, const char *member, char *key,
				 bool whole, struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE], sbuf2[TARBALL_SHOWN_SIZE];
	size_t i, len = strlen(key);
	struct folded *hit;
	char c;

	for (i = 1; i <= len; i++) {
		if (key[i] != '/' && !(whole && i == len))
			continue;
		c = key[i];
		key[i] = '\0';
		hit = folded_find(names, key);
		key[i] = c;
		if (hit != NULL && hit->kind == TARBALL_MEMBER_SYMLINK) {
			pst_refuse(why, "member %s goes through the symlink %s on case-insensitive "
			       "or Unicode-normalising file systems (macOS, Windows): a symlink may "
			       "not stand for a directory or a file of the archive",
			       tarball_shown(member, strlen(member), sbuf), tarball_shown(hit->name, strlen(hit->name), sbuf2));
			return -EBADMSG;
		}
	}
	return 0;
}

static int remember(struct tarball_names *names, char *key, const char *name,
		    enum tarball_member_kind kind)
{
	size_t len = strlen(name);
	struct folded *f = calloc(1, sizeof(*f)), **node;

	if (f == NULL)
		return -ENOMEM;
	f->key = key;
	f->name = strndup(name, len > 0 && name[len - 1] == '/' ? len - 1 : len);
	f->kind = kind;
	node = f->name != NULL ? tsearch(f, &names->tree, folded_compare) : NULL;
	if (node == NULL || *node != f) {
		f->key = NULL;
		folded_free(f);
		return -ENOMEM;
	}
	return 0;
}

/*
 * A repeated name is refused too: libarchive reads pax names NFC
 * normalised, so two members it reports with the same name may be two
 * spellings that GNU tar writes as two files on Linux and one elsewhere.
 * Only a directory may be repeated (tar --append, hand-made archives): two
 * spellings of one directory merge elsewhere, and what each holds is
 * checked member by member, so nothing in them can collide unseen.
 */
static int name_add(struct tarball_names *names, const char *name,
		    enum tarball_member_kind kind, struct pst_err *why)
{
	char sbuf[TARBALL_SHOWN_SIZE], sbuf2[TARBALL_SHOWN_SIZE];
	bool same_bytes;
	char *key = fold_key(name);
	struct folded *earlier;
	int rc;

	if (key == NULL)
		return fold_failed(name, why);
	rc = through_symlink_check(names, name, key, false, why);
	earlier = rc == 0 ? folded_find(names, key) : NULL;
	free(earlier != NULL || rc != 0 ? key : NULL);
	if (rc != 0)
		return rc;
	if (earlier == NULL)
		return remember(names, key, name, kind);
	same_bytes = strncmp(earlier->name, name, strlen(earlier->name)) == 0 &&
		     strspn(name + strlen(earlier->name), "/") == strlen(name + strlen(earlier->name));
	if (same_bytes && kind == TARBALL_MEMBER_DIR && earlier->kind == TARBALL_MEMBER_DIR)
		return 0;
	if (same_bytes)
		pst_refuse(why, "member %s appears twice in the archive (perhaps spelled in two "
		       "Unicode forms, which tar programs read differently); a release holds "
		       "each member once", tarball_shown(name, strlen(name), sbuf));
	else
		pst_refuse(why, "member %s and member %s have names that are the same file on "
		       "case-insensitive or Unicode-normalising file systems (macOS, Windows); "
		       "rename one of them", tarball_shown(name, strlen(name), sbuf),
		       tarball_shown(earlier->name, strlen(earlier->name), sbuf2));
	return -EBADMSG;
}

int tarball_names_add(struct tarball_names *names, const char *name,
		      enum tarball_member_kind kind, const char *linkname, struct pst_err *why)
{
	char *target;
	int rc;

	if (!tarball_name_portable_check(name, kind, linkname, why))
		return -EBADMSG;
	if (kind == TARBALL_MEMBER_HARDLINK && linkname != NULL) {
		target = fold_key(linkname);
		if (target == NULL)
			return fold_failed(name, why);
		rc = through_symlink_check(names, name, target, true, why);
		free(target);
		if (rc != 0)
			return rc;
	}
	return name_add(names, name, kind, why);
}
