/*
 * Any bytes as a command line, through the tokenizer and shell_dispatch():
 * a refusal always says why, in a message without control characters; an
 * accepted command never contains a control character, and an accepted
 * rsync command formats into a line that splits back into the same words,
 * both by our tokenizer and the way rrsync splits it (Python's re \s over
 * code points, then its \\(.) de-backslashing).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "rsync_args.h"
#include "text.h"

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

/* Python's str white space, which rrsync's splitting regex uses. */
static bool python_space(unsigned cp)
{
	return (cp >= 0x09 && cp <= 0x0d) || (cp >= 0x1c && cp <= 0x20) || cp == 0x85 ||
	       cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	       cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

static unsigned code_point(const unsigned char *p, size_t n)
{
	unsigned cp = n == 1 ? p[0] : p[0] & (0xffu >> (n + 1));
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	return cp;
}

/* re.findall(r'(?:[^\s\\]+|\\.[^\s\\]*)+') and DE_BACKSLASH_RE, as in
 * /usr/bin/rrsync, checked word by word against the validated words. */
static void check_rrsync_split(const char *cmd)
{
	static char word[SHELL_CMD_MAX + 1];
	const unsigned char *p = (const unsigned char *)cmd;
	size_t len = strlen(cmd);
	size_t nwords = 0;
	size_t w = 0;
	bool in_word = false;
	size_t n;

	while (len > 0) {
		n = utf8_seq_len(p, len);
		if (n == 0)
			abort();
		if (p[0] == '\\' && n < len && p[1] != '\n') {
			p++;
			len--;
			n = utf8_seq_len(p, len);
			if (n == 0)
				abort();
		} else if (python_space(code_point(p, n)) || p[0] == '\\') {
			if (in_word && (nwords >= d.words.n || strcmp(word, d.words.word[nwords++]) != 0))
				abort();
			in_word = false;
			w = 0;
			word[0] = '\0';
			p += n;
			len -= n;
			continue;
		}
		if (w + n > SHELL_CMD_MAX)
			abort();
		memcpy(word + w, p, n);
		w += n;
		word[w] = '\0';
		in_word = true;
		p += n;
		len -= n;
	}
	if (in_word && (nwords >= d.words.n || strcmp(word, d.words.word[nwords++]) != 0))
		abort();
	if (nwords != d.words.n)
		abort();
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
	check_rrsync_split(line);
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
