/* Listing records as a table, JSON or CSV; it never prints a byte that
 * could act as a control character or a spreadsheet formula. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "audit_list.h"
#include "events.h"
#include "fields.h"
#include "table.h"
#include "timefmt.h"
#include "text_show.h"

#define DETAILS_MAX (2 * FIELDS_RECORD_MAX + 64)
#define WHERE_MAX 96

static bool is_bare(const char *v)
{
	if (*v == '\0')
		return false;
	for (; *v != '\0'; v++) {
		if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
		      (*v >= '0' && *v <= '9') || strchr("._,:/@+%-[]", *v) != NULL))
			return false;
	}
	return true;
}

static bool key_in(const char *key, const char *const *list)
{
	for (; list != NULL && *list != NULL; list++) {
		if (strcmp(key, *list) == 0)
			return true;
	}
	return false;
}

/* The fields after the leading five and not in skip, as
 * "key=value key="quoted value"". */
static void details_of(const struct trail_record *r, const char *const *skip,
		       char *out, size_t size)
{
	size_t i, len = 0;
	const char *v;

	out[0] = '\0';
	for (i = 5; i < r->f.count && len + 1 < size; i++) {
		if (key_in(r->f.key[i], skip))
			continue;
		len += (size_t)snprintf(out + len, size - len, "%s%s=", len > 0 ? " " : "", r->f.key[i]);
		if (len >= size)
			break;
		if (is_bare(r->f.value[i])) {
			len += (size_t)snprintf(out + len, size - len, "%s", r->f.value[i]);
			continue;
		}
		if (len + 4 >= size)
			break;
		out[len++] = '"';
		for (v = r->f.value[i]; *v != '\0' && len + 3 < size; v++) {
			if (*v == '"')
				out[len++] = '\\';
			out[len++] = *v;
		}
		out[len++] = '"';
		out[len] = '\0';
	}
	out[size - 1] = '\0';
}

/* "addr:port", "[v6addr]:port", or the address alone when there is no port. */
static void where_of(const struct trail_record *r, char out[WHERE_MAX])
{
	if (strcmp(r->port, "-") == 0)
		snprintf(out, WHERE_MAX, "%s", r->from);
	else if (strchr(r->from, ':') != NULL)
		snprintf(out, WHERE_MAX, "[%s]:%s", r->from, r->port);
	else
		snprintf(out, WHERE_MAX, "%s:%s", r->from, r->port);
}

/* Session view: a login_ok after the first one starts the next connection
 * that got the same session id (same client address and port). */
struct parts {
	unsigned part;
	bool seen_login;
};

static unsigned part_of(struct parts *p, const struct trail_record *r)
{
	if (strcmp(r->event, "login_ok") == 0) {
		if (p->seen_login)
			p->part++;
		p->seen_login = true;
	}
	return p->part;
}

static void table_records(FILE *out, const struct record_set *set, bool sessions)
{
	static const char *const head[] = { "TIME", "EVENT", "USER", "FROM", "SID", "DETAILS" };
	char time_text[TIME_TEXT_MAX], where[WHERE_MAX], line[64];
	char *details = malloc(DETAILS_MAX);
	struct parts parts = { 1, false };
	unsigned shown = 1;
	struct table t;
	size_t i;

	if (details == NULL)
		return;
	table_init(&t, 6);
	table_add(&t, head);
	for (i = 0; i < set->count; i++) {
		const struct trail_record *r = &set->item[i].r;
		if (sessions && part_of(&parts, r) != shown) {
			shown = parts.part;
			snprintf(line, sizeof(line), "-- connection %u (same address and port) --", shown);
			table_add_line(&t, line);
		}
		time_format_utc(r->time_us, time_text);
		where_of(r, where);
		details_of(r, NULL, details, DETAILS_MAX);
		table_add(&t, (const char *const[]){ time_text, r->event, r->user, where, r->sid, details });
	}
	table_flush(&t, out);
	free(details);
}

/* The fields that hold an audit list (audit_list.h). */
static const char *const list_keys[] = { "files", NULL };

/*
 * The items of list value v as a JSON array, or null when v is not a list
 * as the writer encodes it or the record was cut (its last item could be
 * a cut name).
 */
static json_t *json_list(const char *v, bool truncated)
{
	json_t *items = json_array();
	char item[FIELDS_RECORD_MAX];
	const char *cursor = v;
	int rc = 0;

	while (!truncated && (rc = audit_list_next(&cursor, item, sizeof(item))) > 0)
		json_array_append_new(items, json_string(item));
	if (truncated || rc < 0) {
		json_decref(items);
		return json_null();
	}
	return items;
}

static json_t *json_of(const struct kept_record *k, unsigned part)
{
	const struct trail_record *r = &k->r;
	char time_text[TIME_TEXT_MAX], input[4200];
	json_t *obj = json_object(), *rec = json_object();
	size_t i;

	time_format_utc(r->time_us, time_text);
	snprintf(input, sizeof(input), "%s:%lu", k->file, k->line);
	json_object_set_new(obj, "time", json_string(time_text));
	json_object_set_new(obj, "host", json_string(r->host));
	json_object_set_new(obj, "program", json_string(emitter_name(r->emitter)));
	if (r->service[0] != '\0')
		json_object_set_new(obj, "service", json_string(r->service));
	json_object_set_new(obj, "pid", r->pid >= 0 ? json_integer(r->pid) : json_null());
	json_object_set_new(obj, "verified", json_boolean(r->verified));
	json_object_set_new(obj, "input", json_string(input));
	if (part > 0)
		json_object_set_new(obj, "part", json_integer(part));
	for (i = 0; i < r->f.count; i++)
		json_object_set_new(rec, r->f.key[i], json_string(r->f.value[i]));
	json_object_set_new(obj, "record", rec);
	for (i = 0; i < r->f.count; i++)
		if (key_in(r->f.key[i], list_keys))
			json_object_set_new(obj, r->f.key[i], json_list(r->f.value[i],
					    fields_get(&r->f, "truncated") != NULL));
	return obj;
}

static void json_records(FILE *out, const struct record_set *set, bool sessions)
{
	struct parts parts = { 1, false };
	json_t *obj;
	size_t i;

	for (i = 0; i < set->count; i++) {
		obj = json_of(&set->item[i], sessions ? part_of(&parts, &set->item[i].r) : 0);
		json_dumpf(obj, out, JSON_COMPACT | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		json_decref(obj);
	}
}

void csv_cell(FILE *out, const char *value, bool last)
{
	const char *p;

	fputc('"', out);
	/* A lone "-" (a missing value) cannot form a formula; anything else
	 * starting with a formula character could. */
	if (strchr("=+-@", value[0]) != NULL && value[0] != '\0' && strcmp(value, "-") != 0)
		fputc('\'', out);
	for (p = value; *p != '\0'; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputs(last ? "\"\r\n" : "\",", out);
}

static void csv_records(FILE *out, const struct record_set *set, bool sessions)
{
	static const char *const columns[] = { "module", "version", "file", "reason", NULL };
	char time_text[TIME_TEXT_MAX], part_text[16];
	char *details = malloc(DETAILS_MAX);
	struct parts parts = { 1, false };
	const char *v;
	size_t i, c;

	if (details == NULL)
		return;
	fputs(sessions ? "part," : "", out);
	fputs("time,host,event,user,from,port,sid,module,version,file,reason,details\r\n", out);
	for (i = 0; i < set->count; i++) {
		const struct trail_record *r = &set->item[i].r;
		if (sessions) {
			snprintf(part_text, sizeof(part_text), "%u", part_of(&parts, r));
			csv_cell(out, part_text, false);
		}
		time_format_utc(r->time_us, time_text);
		csv_cell(out, time_text, false);
		csv_cell(out, r->host, false);
		csv_cell(out, r->event, false);
		csv_cell(out, r->user, false);
		csv_cell(out, r->from, false);
		csv_cell(out, r->port, false);
		csv_cell(out, r->sid, false);
		for (c = 0; columns[c] != NULL; c++) {
			v = fields_get(&r->f, columns[c]);
			csv_cell(out, v != NULL ? v : "", false);
		}
		details_of(r, columns, details, DETAILS_MAX);
		csv_cell(out, details, true);
	}
	free(details);
}

void report_records(FILE *out, enum out_format fmt, const struct record_set *set,
		    bool sessions)
{
	switch (fmt) {
	case OUT_JSON:
		json_records(out, set, sessions);
		break;
	case OUT_CSV:
		csv_records(out, set, sessions);
		break;
	case OUT_TABLE:
		table_records(out, set, sessions);
		break;
	}
}

/* At most max characters of text, control characters and non-UTF-8 bytes
 * as \xNN, backslashes doubled; returns whether all of it was shown. */
static bool print_escaped(FILE *out, const char *text, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i = 0, n, shown = 0;

	while (i < len && shown < max) {
		n = text_printable_len(p + i, len - i);
		if (n == 0) {
			fprintf(out, "\\x%02x", p[i]);
			n = 1;
		} else if (p[i] == '\\') {
			fputs("\\\\", out);
		} else {
			fwrite(p + i, 1, n, out);
		}
		i += n;
		shown++;
	}
	return i >= len;
}

void report_suspicious(FILE *err, const char *prog, const char *file, unsigned long line,
		       const char *why, const char *text, size_t len)
{
	fprintf(err, "%s: ", prog);
	print_escaped(err, file, strlen(file), 4096);
	fprintf(err, ":%lu: suspicious, not counted: ", line);
	print_escaped(err, why, strlen(why), PST_ERR_MAX);
	fputs(": ", err);
	fputs(print_escaped(err, text, len, 160) ? "\n" : "...\n", err);
}
