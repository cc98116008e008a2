/*
 * The folded namespace of one archive (see tarball_names.h).
 *
 * Design note. The header rules keep a member inside "<module>-<version>/"
 * as Linux reads names: byte for byte. Mirrors and users unpack releases
 * on macOS and Windows too, and on ext4 with casefold, where
 * "demo-1.0/LINK/x" is written through the symlink "demo-1.0/link" and
 * "x." is "x". So every name is also kept in a folded form: HFS+'s ignored
 * code points (Default_Ignorable_Code_Point) dropped, NTFS's trailing dots
 * and spaces stripped, then NFD, case folded and NFC, by libunistring
 * (u8_normalize, u8_casefold), never by a table of our own. Folding keeps
 * every '/', so a name that goes through a symlink byte for byte goes
 * through it folded too: one lookup answers both.
 */
#define _GNU_SOURCE /* tdestroy() */
#include "tarball_names.h"

#include <errno.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include <unicase.h>
#include <uninorm.h>

#include "member_path.h"

struct folded {
	char *key;       /* the folded name, the tree's order */
	char *name;      /* the member's own name, without a trailing '/' */
	enum tarball_member_kind kind;
};

struct tarball_names {
	void *tree;      /* tsearch() tree of struct folded */
	char *pending;   /* the folded name of the member last looked up */
};

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
 * the header rules have refused already).
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
		o += member_component_ntfs_len(plain + o,
						 member_component_visible(path + i, clen, plain + o));
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
	free(names->pending);
	free(names);
}

/* The earlier member whose folded name is key, or NULL. */
static struct folded *folded_find(struct tarball_names *names, char *key)
{
	struct folded probe = { key, NULL, TARBALL_MEMBER_UNKNOWN };
	struct folded **hit = tfind(&probe, &names->tree, folded_compare);

	return hit != NULL ? *hit : NULL;
}

/* name without trailing slashes, and its length. */
static size_t unslashed_len(const char *name)
{
	size_t len = strlen(name);

	while (len > 0 && name[len - 1] == '/')
		len--;
	return len;
}

/*
 * The earlier symlink member that a folded prefix of key (key itself too
 * when whole) is, or NULL. key is modified and restored.
 */
static struct folded *symlink_on_path(struct tarball_names *names, char *key, bool whole)
{
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
		if (hit != NULL && hit->kind == TARBALL_MEMBER_SYMLINK)
			return hit;
	}
	return NULL;
}

/* Whether path goes through the symlink member named link byte for byte. */
static bool through_exactly(const char *path, const char *link)
{
	size_t n = strlen(link);

	return strncmp(path, link, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

static int link_look(struct tarball_names *names, const char *linkname, struct member_seen *seen)
{
	char *key = fold_key(linkname);
	struct folded *hit;

	if (key == NULL)
		return errno == ENOMEM ? -ENOMEM : -EILSEQ;
	hit = symlink_on_path(names, key, true);
	free(key);
	if (hit != NULL) {
		seen->link_symlink = hit->name;
		seen->link_symlink_exact = through_exactly(linkname, hit->name);
	}
	return 0;
}

int tarball_names_look(struct tarball_names *names, const char *name,
		       enum tarball_member_kind kind, const char *linkname,
		       struct member_seen *seen)
{
	struct folded *hit;

	memset(seen, 0, sizeof(*seen));
	free(names->pending);
	names->pending = fold_key(name);
	if (names->pending == NULL)
		return errno == ENOMEM ? -ENOMEM : -EILSEQ;
	hit = symlink_on_path(names, names->pending, false);
	if (hit != NULL) {
		seen->symlink = hit->name;
		seen->symlink_exact = through_exactly(name, hit->name);
	}
	hit = folded_find(names, names->pending);
	if (hit != NULL) {
		seen->same = hit->name;
		seen->same_kind = hit->kind;
		seen->same_bytes = unslashed_len(name) == strlen(hit->name) &&
				   strncmp(name, hit->name, strlen(hit->name)) == 0;
	}
	if (kind == TARBALL_MEMBER_HARDLINK && linkname != NULL)
		return link_look(names, linkname, seen);
	return 0;
}

int tarball_names_remember(struct tarball_names *names, const char *name,
			   enum tarball_member_kind kind)
{
	struct folded *f, **node;

	if (names->pending == NULL || folded_find(names, names->pending) != NULL)
		return 0;
	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->key = names->pending;
	names->pending = NULL;
	f->name = strndup(name, unslashed_len(name));
	f->kind = kind;
	node = f->name != NULL ? tsearch(f, &names->tree, folded_compare) : NULL;
	if (node == NULL || *node != f) {
		folded_free(f);
		return -ENOMEM;
	}
	return 0;
}
