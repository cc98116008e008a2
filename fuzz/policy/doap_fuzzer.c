/*
 * The DOAP parser on any bytes: no crash, no leak, and either an error with
 * a message or a list of maintainers within the cap, which survives the
 * confined child's answer (doap_answer.h) to root unchanged.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "doap.h"
#include "doap_answer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool same(const char *a, const char *b)
{
	return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* What root reads back from the child equals what the child parsed. */
static void through_answer(const struct doap_maintainers *dm)
{
	struct doap_maintainers back;
	struct pst_err e = { "" };
	char *buf;
	size_t len, i;

	if (doap_answer_encode(0, dm, &e, &buf, &len) != 0 ||
	    doap_answer_decode(buf, len, "fuzz.doap", &back, &e) != 0 || back.n != dm->n)
		abort();
	for (i = 0; i < dm->n; i++)
		if (!same(dm->v[i].userid, back.v[i].userid) || !same(dm->v[i].name, back.v[i].name))
			abort();
	doap_maintainers_free(&back);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct doap_maintainers dm;
	struct pst_err e = { "" };
	size_t i;

	xmlInitParser();
	if (doap_parse((const char *)data, size, "fuzz.doap", &dm, &e) != 0) {
		if (e.msg[0] == '\0' || dm.v != NULL)
			abort();
		return 0;
	}
	if (dm.n > DOAP_MAINTAINERS_MAX)
		abort();
	for (i = 0; i < dm.n; i++)
		if (dm.v[i].userid != NULL && dm.v[i].userid[0] == '\0')
			abort();
	through_answer(&dm);
	doap_maintainers_free(&dm);
	return 0;
}
