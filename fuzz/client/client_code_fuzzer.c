/* What postern-client does with text it did not write: a --code-command
 * line split into execve words, and a code read from a file or a command.
 * (The server's prompt goes through server_text_printable, which
 * client_lines_fuzzer checks; its prompt seeds are in that corpus too.) */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Words are non-empty, blank-free, and together are the input's non-blank
 * runs in order: nothing added, nothing interpreted. */
static void check_split(const char *in)
{
	struct pst_err e = {0};
	char **argv = NULL;
	const char *p = in;
	size_t i;

	if (code_command_split(in, &argv, &e) < 0)
		return;
	for (i = 0; argv[i] != NULL; i++) {
		size_t wl;

		p += strspn(p, " \t");
		wl = strlen(argv[i]);
		if (wl == 0 || strcspn(argv[i], " \t") != wl || strncmp(p, argv[i], wl) != 0)
			abort();
		p += wl;
		free(argv[i]);
	}
	if (i == 0 || p[strspn(p, " \t")] != '\0')
		abort();
	free(argv);
}

static void check_code(const char *in)
{
	if (!code_is_plausible(in))
		return;
	for (const char *p = in; *p != '\0'; p++)
		if (*p <= ' ' || *p >= 0x7f)
			abort();
	if (strlen(in) > CODE_MAX)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	check_split(in);
	check_code(in);
	free(in);
	return 0;
}
