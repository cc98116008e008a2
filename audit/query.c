/* The filters of postern-audit applied to one record; nothing here reads input. */
#include "query.h"

#include <ctype.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int name_list_add(struct name_list *list, char *arg, struct pst_err *e)
{
	char *save = NULL;
	char *name;

	if (arg[0] == '\0' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,") != NULL || arg[0] == ',')
		return pst_fail(e, EINVAL, "empty name in the list");
	for (name = strtok_r(arg, ",", &save); name != NULL; name = strtok_r(NULL, ",", &save)) {
		if (list->count >= QUERY_LIST_MAX)
			return pst_fail(e, EINVAL, "more than %d names for one option", QUERY_LIST_MAX);
		list->name[list->count++] = name;
	}
	return 0;
}

int name_list_fingerprints(struct name_list *list, size_t first, struct pst_err *e)
{
	size_t i;

	for (i = first; i < list->count; i++) {
		char *fpr = (char *)list->name[i];
		const char *c;
		size_t len = 0;

		for (c = fpr; *c != '\0'; c++) {
			if (*c == ' ')
				continue;
			if (!isxdigit((unsigned char)*c))
				return pst_fail(e, EINVAL, "not a fingerprint: '%c' is not a hex digit", *c);
			fpr[len++] = (char)toupper((unsigned char)*c);
		}
		fpr[len] = '\0';
		if (len != 40 && len != 64)
			return pst_fail(e, EINVAL, "not a fingerprint: %zu hex digits, expected 40 or 64",
					len);
	}
	return 0;
}

const char *record_signed(const struct trail_record *r)
{
	const char *v = fields_get(&r->f, "signed");

	if (strcmp(r->event, "install_ok") != 0)
		return NULL;
	return v != NULL && strcmp(v, "yes") == 0 ? "yes" : "no";
}

static bool signed_allows(enum signed_filter want, const struct trail_record *r)
{
	const char *v;

	if (want == SIGNED_ANY)
		return true;
	v = record_signed(r);
	return v != NULL && strcmp(v, want == SIGNED_YES ? "yes" : "no") == 0;
}

const char *record_uploader(const struct trail_record *r)
{
	const char *v = fields_get(&r->f, "uploader");

	return v != NULL && strncmp(v, "ci:", 3) == 0 ? v : r->user;
}

bool record_is_ci(const struct trail_record *r)
{
	return strncmp(record_uploader(r), "ci:", 3) == 0;
}

static bool ci_allows(enum signed_filter want, const struct trail_record *r)
{
	return want == SIGNED_ANY || record_is_ci(r) == (want == SIGNED_YES);
}

static bool list_allows(const struct name_list *list, const char *value)
{
	size_t i;

	if (list->count == 0)
		return true;
	if (value == NULL)
		return false;
	for (i = 0; i < list->count; i++) {
		if (strcmp(list->name[i], value) == 0)
			return true;
	}
	return false;
}

bool query_matches(const struct query *q, const struct trail_record *r)
{
	if (q->have_since && r->time_us < q->since_us)
		return false;
	if (q->have_until && r->time_us > q->until_us)
		return false;
	if (q->sid != NULL && strcmp(q->sid, r->sid) != 0)
		return false;
	return list_allows(&q->users, r->user) && list_allows(&q->events, r->event) &&
	       list_allows(&q->froms, r->from) &&
	       list_allows(&q->modules, fields_get(&r->f, "module")) &&
	       list_allows(&q->uploaders, record_uploader(r)) && ci_allows(q->ci_only, r) &&
	       signed_allows(q->signed_only, r) &&
	       list_allows(&q->signers, fields_get(&r->f, "signer"));
}

int record_set_add(struct record_set *set, struct trail_record *r,
		   const char *file, unsigned long line)
{
	struct kept_record *grown;
	size_t cap;

	if (set->count == set->cap) {
		cap = set->cap == 0 ? 256 : set->cap * 2;
		grown = realloc(set->item, cap * sizeof(*grown));
		if (grown == NULL)
			return -ENOMEM;
		set->item = grown;
		set->cap = cap;
	}
	set->item[set->count] = (struct kept_record){ .r = *r, .file = file, .line = line,
						      .order = set->count };
	set->count++;
	memset(r, 0, sizeof(*r));
	return 0;
}

static int by_time_then_order(const void *a, const void *b)
{
	const struct kept_record *x = a, *y = b;

	if (x->r.time_us != y->r.time_us)
		return x->r.time_us < y->r.time_us ? -1 : 1;
	return x->order < y->order ? -1 : (x->order > y->order);
}

void record_set_sort(struct record_set *set)
{
	if (set->count > 1)
		qsort(set->item, set->count, sizeof(*set->item), by_time_then_order);
}

void record_set_free(struct record_set *set)
{
	size_t i;

	for (i = 0; i < set->count; i++)
		trail_record_free(&set->item[i].r);
	free(set->item);
	memset(set, 0, sizeof(*set));
}
