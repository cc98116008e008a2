/* The sections of a loaded policy, and which files each takes (policy.h). */
#include <string.h>

#include "policy_internal.h"

size_t policy_section_count(const struct policy *p)
{
	return p != NULL ? p->settings.nsections : 0;
}

const struct policy_section *policy_section_at(const struct policy *p, size_t i)
{
	return i < policy_section_count(p) ? &p->settings.sections[i] : NULL;
}

const struct policy_section *policy_section_find(const struct policy *p, const char *name)
{
	size_t i;

	for (i = 0; name != NULL && i < policy_section_count(p); i++)
		if (strcmp(p->settings.sections[i].name, name) == 0)
			return &p->settings.sections[i];
	return NULL;
}

const char *policy_section_accepts(const struct policy_section *s, const char *filename)
{
	const char *best = NULL;
	size_t i, len, best_len = 0;

	if (s == NULL || filename == NULL || strchr(filename, '/') != NULL)
		return NULL;
	len = strlen(filename);
	/* Each pattern is "*.EXT": ".EXT" must end the name, after one byte at least. */
	for (i = 0; s->files[i] != NULL; i++) {
		const char *suffix = s->files[i] + 1;
		size_t slen = strlen(suffix);

		if (len > slen && slen > best_len && strcmp(filename + len - slen, suffix) == 0) {
			best = s->files[i];
			best_len = slen;
		}
	}
	return best;
}
