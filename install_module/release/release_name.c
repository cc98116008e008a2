/*
 * Release file names and versions (grammar and order: see release_name.h).
 *
 * The file name comes from a maintainer and ends up in paths, indexes,
 * mail headers and log records, so everything here is an allow-list: a
 * name either matches the grammar exactly or is refused with the reason.
 */
#include "release_name.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define NUMBER_DIGITS_MAX 9

struct compression {
	enum release_compression c;
	const char *suffix;
	const char *name;
};

static const struct compression compressions[] = {
	{ RELEASE_XZ, "tar.xz", "xz" },
	{ RELEASE_GZ, "tar.gz", "gzip" },
	{ RELEASE_BZ2, "tar.bz2", "bzip2" },
	{ RELEASE_ZST, "tar.zst", "zstd" },
};

#define N_COMPRESSIONS (sizeof(compressions) / sizeof(compressions[0]))

/* Pre-release words in release order; all of them sort before the end of a version. */
static const char *const words[] = { "alpha", "beta", "rc" };

#define N_WORDS (sizeof(words) / sizeof(words[0]))

static const struct compression *compression_of(enum release_compression c)
{
	size_t i;

	for (i = 0; i < N_COMPRESSIONS; i++)
		if (compressions[i].c == c)
			return &compressions[i];
	return NULL;
}

const char *release_compression_suffix(enum release_compression c)
{
	const struct compression *k = compression_of(c);

	return k != NULL ? k->suffix : "tar";
}

const char *release_compression_name(enum release_compression c)
{
	const struct compression *k = compression_of(c);

	return k != NULL ? k->name : "unknown";
}

/* One dot-separated part of a version: a number or a pre-release word. */
struct part {
	const char *s;
	size_t len;
	int word;        /* index into words[], or -1 for a number */
};

static int word_index(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < N_WORDS; i++)
		if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
			return (int)i;
	return -1;
}

static bool is_digits(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return len > 0;
}

/* Only [A-Za-z0-9._+-]: what module names and versions are made of, and safe to echo. */
static bool name_chars_only(const char *s)
{
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("._+-", *s) != NULL))
			return false;
	return true;
}

/* The part starting at *pos; advances *pos past it and its dot. */
static struct part next_part(const char *v, size_t *pos)
{
	struct part p = { v + *pos, 0, -1 };
	const char *dot = strchr(p.s, '.');

	p.len = dot != NULL ? (size_t)(dot - p.s) : strlen(p.s);
	*pos += p.len + (dot != NULL ? 1 : 0);
	if (!is_digits(p.s, p.len))
		p.word = word_index(p.s, p.len);
	return p;
}

/* Which versions a check accepts: new ones, or also those already released. */
enum version_rule {
	VERSION_NEW,         /* the full grammar: numbers without leading zeros */
	VERSION_RELEASED,    /* leading zeros too: releases from before they were refused */
};

static int check_part(const char *version, const struct part *p, const struct part *prev,
		      enum version_rule rule, struct pst_err *e)
{
	if (p->len == 0)
		return pst_fail(e, EINVAL, "version %s has an empty part (write it like 1.2.3)",
				version);
	if (is_digits(p->s, p->len)) {
		if (p->len > NUMBER_DIGITS_MAX)
			return pst_fail(e, EINVAL,
					"version %s has a number longer than %d digits",
					version, NUMBER_DIGITS_MAX);
		/* 1.02 and 1.2 are one version spelled twice: only one spelling exists. */
		if (rule == VERSION_NEW && p->len > 1 && p->s[0] == '0')
			return pst_fail(e, EINVAL,
					"version %s: the number %.*s has a leading zero (write "
					"numbers without one: 1.02 would be the same version as 1.2)",
					version, (int)p->len, p->s);
		return 0;
	}
	if (p->word < 0)
		return pst_fail(e, EINVAL,
				"version %s: '%.*s' is neither a number nor alpha, beta or rc "
				"(versions look like 1.2.3 or 45.beta)",
				version, (int)p->len, p->s);
	if (prev == NULL)
		return pst_fail(e, EINVAL, "version %s must start with a number (like 45.%s)",
				version, words[p->word]);
	if (prev->word >= 0)
		return pst_fail(e, EINVAL,
				"version %s: %s must follow a number (like 45.%s)",
				version, words[p->word], words[p->word]);
	return 0;
}

static int version_check(const char *version, enum version_rule rule, struct pst_err *e)
{
	struct part prev = { NULL, 0, -1 }, cur;
	size_t len = strlen(version), pos = 0;
	unsigned n = 0;
	int rc;

	if (len == 0)
		return pst_fail(e, EINVAL, "the version is missing (name it <module>-<version>.tar.xz)");
	if (len > RELEASE_VERSION_MAX)
		return pst_fail(e, EINVAL, "the version is longer than %d characters",
				RELEASE_VERSION_MAX);
	if (!name_chars_only(version))
		return pst_fail(e, EINVAL, "the version may only contain digits, dots and the "
				"words alpha, beta and rc");
	if (version[len - 1] == '.')
		return pst_fail(e, EINVAL, "version %s ends with a dot", version);
	while (pos < len) {
		cur = next_part(version, &pos);
		if (++n > RELEASE_VERSION_PARTS)
			return pst_fail(e, EINVAL, "version %s has more than %d parts", version,
					RELEASE_VERSION_PARTS);
		rc = check_part(version, &cur, n == 1 ? NULL : &prev, rule, e);
		if (rc < 0)
			return rc;
		prev = cur;
	}
	return 0;
}

int release_version_check(const char *version, struct pst_err *e)
{
	return version_check(version, VERSION_NEW, e);
}

int release_version_check_released(const char *version, struct pst_err *e)
{
	return version_check(version, VERSION_RELEASED, e);
}

/* Rank of a part: words first (in order), then the end of a version, then numbers. */
static int part_rank(const struct part *p)
{
	if (p == NULL)
		return (int)N_WORDS;
	return p->word >= 0 ? p->word : (int)N_WORDS + 1;
}

/* Numbers of at most NUMBER_DIGITS_MAX digits, compared without overflow worries. */
static int number_compare(const struct part *a, const struct part *b)
{
	const char *x = a->s, *y = b->s;
	size_t xl = a->len, yl = b->len;
	int c;

	while (xl > 1 && *x == '0') {
		x++;
		xl--;
	}
	while (yl > 1 && *y == '0') {
		y++;
		yl--;
	}
	if (xl != yl)
		return xl < yl ? -1 : 1;
	c = memcmp(x, y, xl);
	return c < 0 ? -1 : c > 0;
}

/* The next part of v at *pos; false at the end of v. */
static bool take_part(const char *v, size_t *pos, struct part *p)
{
	if (v[*pos] == '\0')
		return false;
	*p = next_part(v, pos);
	return true;
}

static int valid_compare(const char *a, const char *b)
{
	size_t pa = 0, pb = 0;
	struct part x, y;
	bool has_x, has_y;
	int c;

	for (;;) {
		has_x = take_part(a, &pa, &x);
		has_y = take_part(b, &pb, &y);
		if (!has_x && !has_y)
			return 0;
		c = part_rank(has_x ? &x : NULL) - part_rank(has_y ? &y : NULL);
		if (c != 0)
			return c < 0 ? -1 : 1;
		if (has_x && x.word < 0 && (c = number_compare(&x, &y)) != 0)
			return c;
	}
}

int release_version_compare(const char *a, const char *b)
{
	bool va = release_version_check_released(a, NULL) == 0;
	bool vb = release_version_check_released(b, NULL) == 0;
	int c;

	if (va != vb)
		return va ? 1 : -1;
	c = va ? valid_compare(a, b) : 0;
	if (c != 0)
		return c;
	c = strcmp(a, b);
	return c < 0 ? -1 : c > 0;
}

bool release_version_same(const char *a, const char *b)
{
	return release_version_check_released(a, NULL) == 0 &&
	       release_version_check_released(b, NULL) == 0 && valid_compare(a, b) == 0;
}

/* The compression named by the end of filename; the stem length in *stem_len. */
static int split_suffix(const char *filename, size_t *stem_len, enum release_compression *c,
			struct pst_err *e)
{
	size_t len = strlen(filename), sl, i;

	for (i = 0; i < N_COMPRESSIONS; i++) {
		sl = strlen(compressions[i].suffix);
		if (len > sl + 1 && filename[len - sl - 1] == '.' &&
		    strcmp(filename + len - sl, compressions[i].suffix) == 0) {
			*stem_len = len - sl - 1;
			*c = compressions[i].c;
			return 0;
		}
	}
	return pst_fail(e, EINVAL,
			"the name must be <module>-<version>.tar.xz (or .tar.gz, .tar.bz2, .tar.zst)");
}

static int name_parse(const char *filename, enum version_rule rule, struct release_name *out,
		      struct pst_err *e)
{
	char stem[RELEASE_FILE_MAX + 1];
	size_t stem_len = 0;
	char *dash;
	int rc;

	memset(out, 0, sizeof(*out));
	if (strlen(filename) > RELEASE_FILE_MAX)
		return pst_fail(e, EINVAL, "the name is longer than %d characters", RELEASE_FILE_MAX);
	if (strchr(filename, '/') != NULL)
		return pst_fail(e, EINVAL, "give the file name only, without a directory");
	if (!name_chars_only(filename))
		return pst_fail(e, EINVAL, "the name may only contain letters, digits and . _ + - "
				"(no spaces, no other characters)");
	rc = split_suffix(filename, &stem_len, &out->compression, e);
	if (rc < 0)
		return rc;
	memcpy(stem, filename, stem_len);
	stem[stem_len] = '\0';
	/* Versions never contain '-': the last one separates module and version. */
	dash = strrchr(stem, '-');
	if (dash == NULL || dash == stem)
		return pst_fail(e, EINVAL,
				"no '-' between module and version (name it <module>-<version>.%s)",
				release_compression_suffix(out->compression));
	*dash = '\0';
	rc = version_check(dash + 1, rule, e);
	if (rc < 0)
		return rc;
	if (!name_is_module(stem))
		return pst_fail(e, EINVAL,
				"module name '%s' is not allowed (letters, digits and . _ + -, "
				"starting with a letter or digit, at most %d characters)",
				stem, NAME_MODULE_MAX);
	if (!str_copy(out->module, sizeof(out->module), stem) ||
	    !str_copy(out->version, sizeof(out->version), dash + 1))
		return pst_fail(e, EINVAL, "the name is too long");
	return 0;
}

int release_name_parse(const char *filename, struct release_name *out, struct pst_err *e)
{
	return name_parse(filename, VERSION_NEW, out, e);
}

int release_name_parse_released(const char *filename, struct release_name *out,
				struct pst_err *e)
{
	return name_parse(filename, VERSION_RELEASED, out, e);
}

/* The first two parts of a valid version. */
static void major_minor(const char *version, struct part *major, struct part *minor,
			bool *has_minor)
{
	size_t pos = 0;

	*major = next_part(version, &pos);
	*has_minor = take_part(version, &pos, minor);
}

int release_version_dir(const char *version, const char *override, char *out, size_t outlen,
			struct pst_err *e)
{
	struct part major, minor;
	bool has_minor, want_minor;
	int rc, n;

	if (outlen < RELEASE_DIR_MAX)
		return pst_fail(e, EINVAL, "internal error: version directory buffer too small");
	out[0] = '\0';
	rc = release_version_check(version, e);
	if (rc < 0)
		return rc;
	major_minor(version, &major, &minor, &has_minor);
	if (override == NULL) {
		struct part forty = { "40", 2, -1 };

		want_minor = number_compare(&major, &forty) < 0;
	} else if (strcmp(override, "major") == 0) {
		want_minor = false;
	} else if (strcmp(override, "major.minor") == 0) {
		want_minor = true;
	} else {
		return pst_fail(e, EINVAL,
				"version_dir '%s' is not known (use major or major.minor)", override);
	}
	if (want_minor && (!has_minor || minor.word >= 0))
		return pst_fail(e, EINVAL,
				"version %s has no minor number, but this module's releases go to "
				"MAJOR.MINOR directories (use a version like %.*s.0, or ask the "
				"release team to set version_dir: major for the module)",
				version, (int)major.len, major.s);
	if (want_minor)
		n = snprintf(out, outlen, "%.*s.%.*s", (int)major.len, major.s, (int)minor.len,
			     minor.s);
	else
		n = snprintf(out, outlen, "%.*s", (int)major.len, major.s);
	if (n < 0 || (size_t)n >= outlen)
		return pst_fail(e, EINVAL, "internal error: version directory too long");
	return 0;
}

bool release_file_name(const struct release_name *r, char *out, size_t outlen)
{
	int n = snprintf(out, outlen, "%s-%s.%s", r->module, r->version,
			 release_compression_suffix(r->compression));

	if (n < 0 || (size_t)n >= outlen) {
		if (outlen > 0)
			out[0] = '\0';
		return false;
	}
	return true;
}
