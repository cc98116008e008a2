/*
 * Replays fuzz inputs without libFuzzer, so a gcc build can run every
 * corpus in `meson test`: each argument is a file or a directory of files,
 * each file is fed once to LLVMFuzzerTestOneInput.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rbe");
	uint8_t *buf;
	long size;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "fuzz-replay: %s: cannot read\n", path);
		if (f != NULL)
			fclose(f);
		return 1;
	}
	buf = malloc((size_t)size + 1);
	if (buf == NULL || fread(buf, 1, (size_t)size, f) != (size_t)size) {
		fprintf(stderr, "fuzz-replay: %s: short read\n", path);
		free(buf);
		fclose(f);
		return 1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)size);
	free(buf);
	return 0;
}

static int run_path(const char *path, unsigned *count)
{
	struct dirent *de;
	struct stat st;
	char child[4096];
	int failed = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "fuzz-replay: %s: missing\n", path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return run_file(path);
	}
	d = opendir(path);
	if (d == NULL)
		return 1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(child, sizeof(child), "%s/%s", path, de->d_name);
		failed |= run_path(child, count);
	}
	closedir(d);
	return failed;
}

int main(int argc, char **argv)
{
	unsigned count = 0;
	int failed = 0;
	int i;

	for (i = 1; i < argc; i++)
		failed |= run_path(argv[i], &count);
	printf("1..1\n%s 1 - replayed %u inputs\n", failed || count == 0 ? "not ok" : "ok", count);
	return failed || count == 0;
}
