#include "help.h"

void shell_help_print(FILE *out, const char *user, const char *incoming)
{
	fprintf(out,
		"This account publishes releases; it has no shell. Allowed commands:\n"
		"  rsync                      upload, run by your rsync client:  rsync FILE HOST:\n"
		"  install-module [--dry-run] FILE...\n"
		"                             install uploaded release tarballs\n"
		"  list [MODULE]              list releases and your pending uploads\n"
		"  delete-own FILE            delete one of your uploads or recent releases\n"
		"  help                       this text\n");
	if (incoming != NULL)
		fprintf(out, "Uploads go to %s/%s/ (names are relative to it).\n", incoming, user);
}
