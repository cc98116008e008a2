/* postern-audit summary and signers: counts over the records kept; nothing here reads input. */
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
	C_SIGNED,
	C_UNSIGNED,
	C_COUNT,
};

static const char *const count_names[C_COUNT] = {
	"logins_ok", "logins_failed", "denied_commands", "installs",
	"non_maintainer_uploads", "refused_installs", "lockouts",
	"sshd_refusals", "preauth_disconnects", "signed_installs", "unsigned_installs",
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
		u->n[strcmp(record_signed(r), "yes") == 0 ? C_SIGNED : C_UNSIGNED]++;
		maintainer = fields_get(&r->f, "maintainer");
		if (maintainer != NULL && strcmp(maintainer, "no") == 0)
			u->n[C_NMU]++;
	}
}

static void print_summary(FILE *out, enum out_format fmt, const struct user_counts *all, size_t count)
{
	static const char *const head[] = { "USER", "LOGIN_OK", "LOGIN_FAILED", "DENIED",
					     "INSTALLS", "NMU", "REFUSED", "LOCKOUTS",
					     "SSHD_REFUSED", "PREAUTH", "SIGNED", "UNSIGNED" };
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
		count_record(counts_for(all, &count, record_uploader(&set->item[i].r)),
			     &set->item[i].r);
	qsort(all, count, sizeof(*all), by_user);
	print_summary(out, fmt, all, count);
	free(all);
	return 0;
}

/* Releases per signing key; signer "-" gathers the unsigned ones. */
struct signer_counts {
	const char *signer;
	unsigned long releases;
	struct name_list users, modules;   /* distinct; "..." once the list is full */
};

static int by_signer(const void *a, const void *b)
{
	return strcmp(((const struct signer_counts *)a)->signer,
		      ((const struct signer_counts *)b)->signer);
}

static void add_distinct(struct name_list *l, const char *name)
{
	size_t i;

	if (name == NULL)
		return;
	for (i = 0; i < l->count; i++)
		if (strcmp(l->name[i], name) == 0)
			return;
	if (l->count + 1 < QUERY_LIST_MAX)
		l->name[l->count++] = name;
	else if (l->count + 1 == QUERY_LIST_MAX)
		l->name[l->count++] = "...";
}

struct signer_set {
	struct signer_counts *v;
	size_t count, cap;
};

static int count_release(struct signer_set *set, const struct trail_record *r)
{
	const char *signer = fields_get(&r->f, "signer");
	struct signer_counts *all = set->v;
	size_t i;

	if (strcmp(record_signed(r), "yes") != 0 || signer == NULL)
		signer = "-";
	for (i = 0; i < set->count && strcmp(all[i].signer, signer) != 0; i++)
		;
	if (i == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		all = realloc(set->v, cap * sizeof(*all));
		if (all == NULL)
			return -ENOMEM;
		set->v = all;
		set->cap = cap;
	}
	if (i == set->count) {
		memset(&all[i], 0, sizeof(all[i]));
		all[set->count++].signer = signer;
	}
	all[i].releases++;
	add_distinct(&all[i].users, r->user);
	add_distinct(&all[i].modules, fields_get(&r->f, "module"));
	return 0;
}

static void join(const struct name_list *l, char *out, size_t size)
{
	size_t i, len = 0;

	out[0] = '\0';
	for (i = 0; i < l->count && len < size; i++)
		len += (size_t)snprintf(out + len, size - len, "%s%s", i ? "," : "", l->name[i]);
}

static void print_signers(FILE *out, enum out_format fmt, const struct signer_counts *all,
			  size_t count)
{
	static const char *const head[] = { "SIGNER", "RELEASES", "USERS", "MODULES" };
	char num[24], users[4096], modules[4096];
	struct table t;
	json_t *obj;
	size_t i;

	table_init(&t, 4);
	if (fmt == OUT_TABLE)
		table_add(&t, head);
	if (fmt == OUT_CSV)
		fputs("signer,releases,users,modules\r\n", out);
	for (i = 0; i < count; i++) {
		snprintf(num, sizeof(num), "%lu", all[i].releases);
		join(&all[i].users, users, sizeof(users));
		join(&all[i].modules, modules, sizeof(modules));
		if (fmt == OUT_JSON) {
			obj = json_object();
			json_object_set_new(obj, "signer", json_string(all[i].signer));
			json_object_set_new(obj, "releases", json_integer((json_int_t)all[i].releases));
			json_object_set_new(obj, "users", json_string(users));
			json_object_set_new(obj, "modules", json_string(modules));
			json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fputc('\n', out);
			json_decref(obj);
		} else if (fmt == OUT_CSV) {
			csv_cell(out, all[i].signer, false);
			csv_cell(out, num, false);
			csv_cell(out, users, false);
			csv_cell(out, modules, true);
		} else {
			table_add(&t, (const char *const[]){ all[i].signer, num, users, modules });
		}
	}
	table_flush(&t, out);
}

int report_signers(FILE *out, enum out_format fmt, const struct record_set *set)
{
	struct signer_set signers = { 0 };
	size_t i;
	int rc = 0;

	for (i = 0; i < set->count && rc == 0; i++)
		if (record_signed(&set->item[i].r) != NULL)
			rc = count_release(&signers, &set->item[i].r);
	if (rc == 0) {
		if (signers.count > 1)
			qsort(signers.v, signers.count, sizeof(*signers.v), by_signer);
		print_signers(out, fmt, signers.v, signers.count);
	}
	free(signers.v);
	return rc;
}
