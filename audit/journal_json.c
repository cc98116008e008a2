/* One `journalctl -o json` line to its fields, through jansson; it never
 * takes a field's value for a trusted one unless journald set it ("_"). */
#include "journal_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fields.h"
#include "text_show.h"

/* A field that must be one printable string of at most out_size-1 bytes;
 * absent leaves out as it is. */
static int get_text(json_t *obj, const char *name, char *out, size_t out_size,
		    struct pst_err *e)
{
	json_t *v = json_object_get(obj, name);
	size_t len;

	if (v == NULL)
		return 0;
	if (!json_is_string(v))
		return pst_fail(e, EINVAL, "%s is not a single string (given twice, or binary)", name);
	len = json_string_length(v);
	if (len >= out_size || !text_printable(json_string_value(v), len))
		return pst_fail(e, EINVAL, "%s is over-long or holds control characters", name);
	memcpy(out, json_string_value(v), len);
	out[len] = '\0';
	return 0;
}

static int get_number(json_t *obj, const char *name, bool required, int64_t max,
		      int64_t *out, struct pst_err *e)
{
	json_t *v = json_object_get(obj, name);
	const char *s;
	int64_t n = 0;

	if (v == NULL) {
		if (required)
			return pst_fail(e, EINVAL, "entry without %s", name);
		*out = -1;
		return 0;
	}
	s = json_is_string(v) ? json_string_value(v) : NULL;
	if (s == NULL || *s == '\0')
		return pst_fail(e, EINVAL, "%s is not a number in a string", name);
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || n > (max - (*s - '0')) / 10)
			return pst_fail(e, EINVAL, "%s is not a number in range", name);
		n = n * 10 + (*s - '0');
	}
	*out = n;
	return 0;
}

/* MESSAGE as a string, or as journald's array of byte values. */
static int get_message(json_t *obj, struct journal_entry *j, struct pst_err *e)
{
	json_t *v = json_object_get(obj, "MESSAGE");
	json_t *byte;
	size_t i;

	if (v == NULL)
		return pst_fail(e, EINVAL, "entry without MESSAGE");
	if (json_is_string(v)) {
		j->msg_len = json_string_length(v);
		j->msg = malloc(j->msg_len + 1);
		if (j->msg == NULL)
			return pst_fail(e, ENOMEM, "out of memory");
		memcpy(j->msg, json_string_value(v), j->msg_len);
		j->msg[j->msg_len] = '\0';
		return 0;
	}
	if (!json_is_array(v))
		return pst_fail(e, EINVAL, "MESSAGE is neither a string nor bytes");
	j->msg = malloc(json_array_size(v) + 1);
	if (j->msg == NULL)
		return pst_fail(e, ENOMEM, "out of memory");
	json_array_foreach(v, i, byte) {
		if (!json_is_integer(byte) || json_integer_value(byte) < 0 ||
		    json_integer_value(byte) > 255)
			return pst_fail(e, EINVAL, "MESSAGE given twice, or not bytes");
		j->msg[i] = (char)json_integer_value(byte);
	}
	j->msg_len = json_array_size(v);
	j->msg[j->msg_len] = '\0';
	return 0;
}

static int read_entry(json_t *obj, struct journal_entry *j, struct pst_err *e)
{
	int64_t n;
	int rc;

	if ((rc = get_number(obj, "__REALTIME_TIMESTAMP", true, INT64_MAX, &j->time_us, e)) != 0 ||
	    (rc = get_number(obj, "_PID", false, 0x7fffffff, &n, e)) != 0)
		return rc;
	j->pid = (long)n;
	if ((rc = get_number(obj, "_UID", false, 0xffffffffLL, &n, e)) != 0)
		return rc;
	j->uid = (long)n;
	if ((rc = get_text(obj, "_HOSTNAME", j->host, sizeof(j->host), e)) != 0 ||
	    (rc = get_text(obj, "SYSLOG_IDENTIFIER", j->tag, sizeof(j->tag), e)) != 0 ||
	    (rc = get_text(obj, "_EXE", j->exe, sizeof(j->exe), e)) != 0)
		return rc;
	return get_message(obj, j, e);
}

/* jansson quotes the offending input in its message: never echo raw bytes. */
static void make_printable(char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0) {
			s[i] = '?';
			n = 1;
		}
		i += n;
	}
}

int journal_entry_parse(struct journal_entry *j, const char *line, size_t len,
			struct pst_err *e)
{
	json_error_t jerr;
	json_t *obj;
	int rc;

	memset(j, 0, sizeof(*j));
	j->pid = -1;
	j->uid = -1;
	strcpy(j->host, "-");
	obj = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (obj == NULL) {
		make_printable(jerr.text);
		return pst_fail(e, EINVAL, "not JSON: %s (column %d)", jerr.text, jerr.column);
	}
	if (!json_is_object(obj))
		rc = pst_fail(e, EINVAL, "not a JSON object");
	else
		rc = read_entry(obj, j, e);
	json_decref(obj);
	return rc;
}

void journal_entry_free(struct journal_entry *j)
{
	free(j->msg);
	j->msg = NULL;
}
