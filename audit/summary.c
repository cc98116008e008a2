#include "report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "table.h"

enum count {
	C_LOGIN_OK,
	C_LOGIN_FAILED,
	C_DENIED,
	C_INSTALLS,
	C_NMU,
	C_REFUSED,
	C_LOCKOUTS,
	C_SSHD_REFUSED,
	C_PREAUTH,
	C_COUNT,
};

static const char *const count_names[C_COUNT] = {
	"logins_ok", "logins_failed", "denied_commands", "installs",
	"non_maintainer_uploads", "refused_installs", "lockouts",
	"sshd_refusals", "preauth_disconnects",
};

struct user_counts {
	const char *user;
	unsigned long n[C_COUNT];
};

static int by_user(const void *a, const void *b)
{
	return strcmp(((const struct user_counts *)a)->user, ((const struct user_counts *)b)->user);
}

static struct user_counts *counts_for(struct user_counts *all, size_t *count, const char *user)
{
	size_t i;

	for (i = 0; i < *count; i++) {
		if (strcmp(all[i].user, user) == 0)
			return &all[i];
	}
	memset(&all[*count], 0, sizeof(all[*count]));
	all[*count].user = user;
	return &all[(*count)++];
}

static void count_record(struct user_counts *u, const struct trail_record *r)
{
	const char *maintainer;

	if (strcmp(r->event, "login_ok") == 0)
		u->n[C_LOGIN_OK]++;
	else if (strcmp(r->event, "login_fail") == 0)
		u->n[C_LOGIN_FAILED]++;
	else if (strcmp(r->event, "command_deny") == 0)
		u->n[C_DENIED]++;
	else if (strcmp(r->event, "install_refused") == 0)
		u->n[C_REFUSED]++;
	else if (strcmp(r->event, "lockout") == 0)
		u->n[C_LOCKOUTS]++;
	else if (strcmp(r->event, "sshd_preauth_disconnect") == 0)
		u->n[C_PREAUTH]++;
	else if (strncmp(r->event, "sshd_", 5) == 0)
		u->n[C_SSHD_REFUSED]++;
	else if (strcmp(r->event, "install_ok") == 0) {
		u->n[C_INSTALLS]++;
		maintainer = fields_get(&r->f, "maintainer");
		if (maintainer != NULL && strcmp(maintainer, "no") == 0)
			u->n[C_NMU]++;
	}
}

static void print_summary(FILE *out, enum out_format fmt, const struct user_counts *all, size_t count)
{
	static const char *const head[] = { "USER", "LOGIN_OK", "LOGIN_FAILED", "DENIED",
					     "INSTALLS", "NMU", "REFUSED", "LOCKOUTS",
					     "SSHD_REFUSED", "PREAUTH" };
	char num[C_COUNT][24];
	const char *cells[C_COUNT + 1];
	struct table t;
	json_t *obj;
	size_t i, c;

	table_init(&t, C_COUNT + 1);
	if (fmt == OUT_TABLE)
		table_add(&t, head);
	if (fmt == OUT_CSV) {
		fputs("user", out);
		for (c = 0; c < C_COUNT; c++)
			fprintf(out, ",%s", count_names[c]);
		fputs("\r\n", out);
	}
	for (i = 0; i < count; i++) {
		if (fmt == OUT_JSON) {
			obj = json_object();
			json_object_set_new(obj, "user", json_string(all[i].user));
			for (c = 0; c < C_COUNT; c++)
				json_object_set_new(obj, count_names[c], json_integer((json_int_t)all[i].n[c]));
			json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputc('\n', out);
			json_decref(obj);
			continue;
		}
		cells[0] = all[i].user;
		for (c = 0; c < C_COUNT; c++) {
			snprintf(num[c], sizeof(num[c]), "%lu", all[i].n[c]);
			cells[c + 1] = num[c];
		}
		if (fmt == OUT_CSV) {
			for (c = 0; c <= C_COUNT; c++)
				csv_cell(out, cells[c], c == C_COUNT);
		} else {
			table_add(&t, cells);
		}
	}
	table_flush(&t, out);
}

int report_summary(FILE *out, enum out_format fmt, const struct record_set *set)
{
	struct user_counts *all = calloc(set->count + 1, sizeof(*all));
	size_t count = 0, i;

	if (all == NULL)
		return -ENOMEM;
	for (i = 0; i < set->count; i++)
		count_record(counts_for(all, &count, set->item[i].r.user), &set->item[i].r);
	qsort(all, count, sizeof(*all), by_user);
	print_summary(out, fmt, all, count);
	free(all);
	return 0;
}
