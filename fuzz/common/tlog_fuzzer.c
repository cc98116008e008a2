/*
 * Any bytes through the release log's parsers, chosen by the first byte:
 * 'e' a log entry, 'c' a checkpoint body, 'n' a signed note, 'k' a verifier
 * key, 'b' an entry bundle, 'p' a c2sp.org/tlog-proof file. No crash; whatever parses formats back to the
 * same bytes (the parsers accept exactly one spelling).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "log_entry.h"
#include "tlog_note.h"
#include "tlog_proof_file.h"
#include "tlog_tile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_VKEY "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"

static void entry(const char *s, size_t n)
{
	struct log_entry le;
	char again[LOG_ENTRY_TEXT_MAX + 1];

	if (log_entry_parse(s, n, &le, NULL) == 0 &&
	    (log_entry_format(&le, again, sizeof(again), NULL) != (int)n || memcmp(again, s, n) != 0))
		abort();
}

static void checkpoint(const char *s, size_t n)
{
	struct tlog_checkpoint c;
	char again[512];
	int w;

	if (tlog_checkpoint_parse(s, n, &c, NULL) != 0)
		return;
	w = tlog_checkpoint_format(&c, again, sizeof(again), NULL);
	/* Extension lines are ignored: the parsed part is a prefix. */
	if (w <= 0 || (size_t)w > n || memcmp(again, s, (size_t)w) != 0)
		abort();
}

static void note(const char *s, size_t n)
{
	struct tlog_vkey k;
	int body;

	if (tlog_vkey_parse(FUZZ_VKEY, strlen(FUZZ_VKEY), &k, NULL) != 0)
		abort();
	body = tlog_note_open(&k, s, n, NULL);
	if (body > 0 && ((size_t)body >= n || s[body - 1] != '\n' || s[body] != '\n'))
		abort();
}

static void vkey(const char *s, size_t n)
{
	struct tlog_vkey k;
	char again[TLOG_VKEY_MAX];

	if (tlog_vkey_parse(s, n, &k, NULL) != 0)
		return;
	tlog_vkey_format(&k, again);
	if (strlen(again) != n || memcmp(again, s, n) != 0)
		abort();
}

static void bundle(const unsigned char *s, size_t n)
{
	const unsigned char *e;
	size_t off = 0, len, last = 0;
	bool bad;

	while (tlog_bundle_next(s, n, &off, &e, &len, &bad)) {
		if (off <= last || off > n || e + len != s + off || len == 0)
			abort();
		last = off;
	}
	if (!bad && off != n)
		abort();
}

static void proof_file(const char *s, size_t n)
{
	static struct tlog_proof_file f;
	static char again[TLOG_PROOF_FILE_MAX + 1];
	struct tlog_vkey k;
	struct tlog_checkpoint cp;

	if (tlog_proof_file_parse(s, n, &f, NULL) != 0)
		return;
	if (tlog_proof_file_format(&f, again, sizeof(again), NULL) != (int)n || memcmp(again, s, n) != 0)
		abort();
	if (tlog_vkey_parse(FUZZ_VKEY, strlen(FUZZ_VKEY), &k, NULL) != 0)
		abort();
	(void)tlog_proof_file_check(&f, &k, &cp, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data + 1;
	size_t n = size - 1;

	if (size == 0)
		return 0;
	switch (data[0]) {
	case 'e': entry(s, n); break;
	case 'c': checkpoint(s, n); break;
	case 'n': note(s, n); break;
	case 'k': vkey(s, n); break;
	case 'b': bundle(data + 1, n); break;
	case 'p': proof_file(s, n); break;
	default: break;
	}
	return 0;
}
