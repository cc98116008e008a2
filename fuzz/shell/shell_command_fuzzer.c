/*
 * Any bytes as a command line, through the tokenizer and shell_dispatch():
 * a refusal always says why, in a message without control characters; an
 * accepted command never contains a control character, and an accepted
 * rsync command formats into a line that splits back into the same words.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "rsync_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct shell_decision d;
static struct shell_words again;
static char line[2 * SHELL_CMD_MAX + SHELL_WORDS_MAX + 1];

static void check_text(const char *s)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			abort();
	}
}

static void check_round_trip(void)
{
	struct pst_err e = { "" };
	size_t i;

	if (rsync_command_format(d.words.n, d.words.word, line, sizeof(line)) < 0)
		abort();
	if (shell_tokenize(line, strlen(line), &again, &e) < 0 || again.n != d.words.n)
		abort();
	for (i = 0; i < again.n; i++) {
		if (strcmp(again.word[i], d.words.word[i]) != 0)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t i;

	if (shell_dispatch((const char *)data, size, &d) == SHELL_REFUSED) {
		if (d.why.msg[0] == '\0')
			abort();
		check_text(d.why.msg);
		return 0;
	}
	if (d.words.n == 0 || d.name == NULL || strcmp(d.words.word[0], d.name) != 0)
		abort();
	for (i = 0; i < d.words.n; i++)
		check_text(d.words.word[i]);
	if (d.command == SHELL_RSYNC)
		check_round_trip();
	return 0;
}
