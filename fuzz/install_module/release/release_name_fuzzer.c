/*
 * Release names and versions from any bytes. Input: "<file name>\n<other
 * version>". Checks the invariants the daemon relies on: a parsed name
 * rebuilds to exactly the input, its parts pass the checks on their own,
 * the version order is antisymmetric and reflexive, a version
 * directory is a prefix of the version, every new name is also a released
 * one, and two spellings of one version (release_version_same) can never
 * both pass as new: no version can be released twice under two names.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "release_name.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_name(const char *file)
{
	char back[RELEASE_FILE_MAX + 1], dir[RELEASE_DIR_MAX];
	static const char *const overrides[] = { NULL, "major", "major.minor", "minor" };
	struct release_name r;
	struct pst_err e;
	size_t i;

	if (release_name_parse(file, &r, &e) != 0) {
		if (e.msg[0] == '\0')
			abort();
		return;
	}
	if (!release_file_name(&r, back, sizeof(back)) || strcmp(back, file) != 0)
		abort();
	if (!name_is_module(r.module) || release_version_check(r.version, NULL) != 0 ||
	    strchr(r.version, '-') != NULL)
		abort();
	for (i = 0; i < sizeof(overrides) / sizeof(overrides[0]); i++) {
		if (release_version_dir(r.version, overrides[i], dir, sizeof(dir), &e) != 0)
			continue;
		if (strncmp(r.version, dir, strlen(dir)) != 0 ||
		    (r.version[strlen(dir)] != '\0' && r.version[strlen(dir)] != '.'))
			abort();
	}
}

/* What the tree scan accepts: a superset of new names, rebuilt exactly. */
static void check_released_name(const char *file)
{
	char back[RELEASE_FILE_MAX + 1];
	struct release_name r, strict;
	bool is_new = release_name_parse(file, &strict, NULL) == 0;

	if (release_name_parse_released(file, &r, NULL) != 0) {
		if (is_new)
			abort();
		return;
	}
	if (!release_file_name(&r, back, sizeof(back)) || strcmp(back, file) != 0 ||
	    release_version_check_released(r.version, NULL) != 0)
		abort();
	if (is_new && (strcmp(r.module, strict.module) != 0 || strcmp(r.version, strict.version) != 0))
		abort();
}

static void check_same(const char *a, const char *b)
{
	bool same = release_version_same(a, b);

	if (same != release_version_same(b, a))
		abort();
	if (release_version_same(a, a) != (release_version_check_released(a, NULL) == 0))
		abort();
	if (same && strcmp(a, b) != 0 && release_version_check(a, NULL) == 0 &&
	    release_version_check(b, NULL) == 0)
		abort();
}

static void check_order(const char *a, const char *b)
{
	int ab = release_version_compare(a, b), ba = release_version_compare(b, a);

	if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0) || (ab == 0 && strcmp(a, b) != 0))
		abort();
	if (release_version_compare(a, a) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *nl;

	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	nl = strchr(buf, '\n');
	if (nl != NULL)
		*nl = '\0';
	check_name(buf);
	check_released_name(buf);
	if (nl != NULL) {
		check_order(buf, nl + 1);
		check_same(buf, nl + 1);
	}
	check_order(buf, "45.0");
	free(buf);
	return 0;
}
