/* The lines of install-module that postern-client --release reads from the
 * server: which file a line names, whether it says "installed" with a
 * sha256, and the text shown for it on the terminal. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "server_lines.h"
#include "text_show.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool is_hex64(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (size_t i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* A result needs the exact prefix, a file name from the line itself, and
 * a sha256 of 64 lowercase hex digits that the line holds. */
static void check_line(const char *in, bool is_stderr)
{
	struct server_line sl;

	server_line_parse(in, is_stderr, &sl);
	if (sl.kind == SERVER_LINE_OTHER) {
		if (sl.file[0] != '\0' || sl.sha256[0] != '\0')
			abort();
		return;
	}
	if (strncmp(in, "install-module: ", 16) != 0 || sl.file[0] == '\0' ||
	    strchr(sl.file, ' ') != NULL || strncmp(in + 16, sl.file, strlen(sl.file)) != 0)
		abort();
	if (is_stderr != (sl.kind == SERVER_LINE_REFUSED))
		abort();
	if (sl.kind == SERVER_LINE_INSTALLED || sl.kind == SERVER_LINE_WOULD) {
		if (!is_hex64(sl.sha256) || strstr(in, sl.sha256) == NULL)
			abort();
	} else if (sl.sha256[0] != '\0') {
		abort();
	}
}

static void check_shown(const char *in)
{
	char shown[256];

	server_text_printable(shown, sizeof(shown), in);
	if (!text_printable(shown, strlen(shown)))
		abort();
	if (strlen(shown) >= sizeof(shown) || strlen(shown) > strlen(in))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *in = malloc(size + 1);

	if (in == NULL)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	check_line(in, false);
	check_line(in, true);
	check_shown(in);
	free(in);
	return 0;
}
