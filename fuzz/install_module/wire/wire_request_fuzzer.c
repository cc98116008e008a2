/*
 * The daemon's request decoder: any bytes must either be refused or decode
 * to a request that passes every field rule, and re-encode to exactly the
 * same bytes (so the decoder accepts nothing the encoder would not write).
 * A signature rides only with an install, and the names derived for it
 * (wire_signature_name) stay one path component.
 * Also parses the bytes as a ledger line, the other text the daemon reads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ledger.h"
#include "wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_ledger_line(const uint8_t *data, size_t size)
{
	char line[LEDGER_LINE_MAX];
	char again[LEDGER_LINE_MAX];
	struct ledger_record r;

	if (size >= sizeof(line))
		return;
	memcpy(line, data, size);
	line[size] = '\0';
	if (ledger_parse(line, &r) && ledger_format(&r, again, sizeof(again))) {
		struct ledger_record r2;
		if (!ledger_parse(again, &r2) || strcmp(r.file, r2.file) != 0 || r.when != r2.when)
			abort();
	}
}

static void check_signature_names(const char *name)
{
	static const enum wire_signature forms[] = { WIRE_SIG_ASC, WIRE_SIG_BIN, WIRE_SIG_TAR };
	char sig[300];
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (wire_signature_name(name, forms[i], sig, sizeof(sig)) &&
		    (strchr(sig, '/') != NULL || strcmp(sig, name) == 0))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t again[WIRE_REQUEST_MAX];
	struct wire_request r;
	size_t len;

	check_ledger_line(data, size);
	if (wire_request_decode(data, size, &r, NULL) != 0)
		return 0;
	if (memchr(r.name, '/', strlen(r.name)) != NULL && r.op != WIRE_OP_LIST_MINE)
		abort();
	if (r.sig != WIRE_SIG_NONE && !wire_op_installs(r.op))
		abort();
	/* A job's fields go into ledger and log lines: never a space or '='. */
	if (r.op == WIRE_OP_CI_INSTALL &&
	    (strpbrk(r.ci.project, " =\n") != NULL || strpbrk(r.ci.user, " =\n") != NULL ||
	     (r.flags & WIRE_FLAG_FORCE) != 0))
		abort();
	if (wire_op_installs(r.op))
		check_signature_names(r.name);
	len = wire_request_encode(&r, again, sizeof(again));
	if (len != size || memcmp(again, data, size) != 0)
		abort();
	return 0;
}
