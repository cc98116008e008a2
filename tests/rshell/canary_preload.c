/*
 * An LD_PRELOAD canary for the environment tests: when loaded into a
 * process it creates hits/<program name> next to itself. The test expects
 * exactly one hit, from postern-shell itself (the loader runs before any
 * check can), and none from a program postern-shell starts.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

__attribute__((constructor)) static void canary_hit(void)
{
	char exe[PATH_MAX] = "";
	char hit[PATH_MAX];
	const char *slash;
	const char *name;
	Dl_info info;
	ssize_t n;
	int fd;

	if (dladdr((void *)canary_hit, &info) == 0 || info.dli_fname == NULL)
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : "unknown";
	slash = strrchr(info.dli_fname, '/');
	if (slash == NULL)
		return;
	snprintf(hit, sizeof(hit), "%.*s/hits/%s", (int)(slash - info.dli_fname),
		 info.dli_fname, name);
	fd = open(hit, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}
