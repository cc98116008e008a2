/*
 * One `journalctl -o json` line: the journal reader (jansson, then the
 * fields journald vouches for) must never crash, must keep every text it
 * passes on printable, and must never trust a record whose sender uid is
 * not allowed for its program.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "fields.h"
#include "journal_json.h"
#include "trail.h"
#include "text_show.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define DAEMON_UID 999
#define ALICE_UID 1000

static long test_uid(const char *user)
{
	return strcmp(user, "alice") == 0 ? ALICE_UID : -1;
}

static void check_printable(const char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		n = text_printable_len((const unsigned char *)s + i, len - i);
		if (n == 0)
			abort();
		i += n;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trail_rules rules = {
		.years = { .year = 2026, .fixed = true },
		.daemon_uid = DAEMON_UID,
		.shell_exe = "/usr/bin/postern-shell",
		.uid_of_user = test_uid,
	};
	struct journal_entry j;
	struct trail_record r;
	struct pst_err why;

	if (journal_entry_parse(&j, (const char *)data, size, &why) == 0) {
		check_printable(j.host);
		check_printable(j.tag);
		check_printable(j.exe);
		if (j.msg == NULL)
			abort();
	} else {
		check_printable(why.msg);
	}
	if (trail_read_line((const char *)data, size, TRAIL_JOURNAL, &rules, &r, &why) == TRAIL_RECORD) {
		/* accepted: journald's uid must be one this program runs as */
		if (!r.verified || (j.uid != 0 && j.uid != DAEMON_UID &&
				    !(r.emitter == EMIT_SHELL && j.uid == ALICE_UID &&
				      strcmp(r.user, "alice") == 0)))
			abort();
		trail_record_free(&r);
	}
	journal_entry_free(&j);
	return 0;
}
