#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "safefile.h"

struct fixture {
	char path[64];
	int dirfd;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return -1;
	strcpy(f->path, "/tmp/postern-sf-XXXXXX");
	if (mkdtemp(f->path) == NULL)
		return -1;
	f->dirfd = open(f->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	*state = f;
	return f->dirfd < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct dirent *de;
	DIR *d = fdopendir(dup(f->dirfd));

	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] != '.' || (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")))
			unlinkat(f->dirfd, de->d_name, 0);
	}
	if (d != NULL)
		closedir(d);
	close(f->dirfd);
	rmdir(f->path);
	free(f);
	return 0;
}

static void put_file(struct fixture *f, const char *name, const char *content, mode_t mode)
{
	int fd = openat(f->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, content, strlen(content)), (ssize_t)strlen(content));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static char *get_file(struct fixture *f, const char *name)
{
	int fd = openat(f->dirfd, name, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;

	assert_true(fd >= 0);
	assert_int_equal(sf_read_all(fd, 1 << 20, &buf, NULL, NULL), 0);
	close(fd);
	return buf;
}

static int count_entries(struct fixture *f)
{
	DIR *d = fdopendir(dup(f->dirfd));
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static int read_all_status(int fd, size_t max, size_t *len)
{
	char *buf = NULL;
	struct pst_err e;
	int rc = sf_read_all(fd, max, &buf, len, &e);

	if (rc == 0)
		assert_int_equal(strlen(buf), *len);
	free(buf);
	return rc;
}

/*
 * The first buffer comes from fstat; neither a size-0 /proc file nor a pipe
 * (10,000 bytes fit in its default 64 KiB) is cut short.
 */
static void test_read_all_sizes(void **state)
{
	struct fixture *f = *state;
	static char big[10000];
	int fds[2];
	size_t len = 0;
	int fd;

	put_file(f, "ten", "0123456789", 0600);
	fd = openat(f->dirfd, "ten", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read_all_status(fd, 10, &len), 0);
	assert_int_equal(len, 10);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(read_all_status(fd, 9, &len), -EFBIG);
	close(fd);

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(read_all_status(fd, 1 << 20, &len), 0);
	assert_true(len > 100);
	close(fd);

	memset(big, 'x', sizeof(big));
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], big, sizeof(big)), (ssize_t)sizeof(big));
	close(fds[1]);
	assert_int_equal(read_all_status(fds[0], 1 << 20, &len), 0);
	assert_int_equal(len, sizeof(big));
	close(fds[0]);
}

static const struct sf_rule private_file = {
	.type = S_IFREG, .uid = SF_ANY_UID, .gid = SF_ANY_GID, .forbid = 077, .max_size = 1024,
};

static void test_open_checks_pass(void **state)
{
	struct fixture *f = *state;
	struct pst_err e;
	int fd;

	put_file(f, "good", "data", 0600);
	fd = sf_openat(f->dirfd, "good", O_RDONLY, &private_file, NULL, &e);
	assert_true(fd >= 0);
	close(fd);
}

static void test_symlink_refused(void **state)
{
	struct fixture *f = *state;
	struct pst_err e;

	put_file(f, "target", "secret", 0600);
	assert_int_equal(symlinkat("target", f->dirfd, "link"), 0);
	assert_int_equal(sf_openat(f->dirfd, "link", O_RDONLY, &private_file, NULL, &e), -ELOOP);
	assert_non_null(strstr(e.msg, "symlink"));
}

static void test_symlinked_directory_refused(void **state)
{
	struct fixture *f = *state;
	struct pst_err e;
	char path[128];
	int fd;

	assert_int_equal(mkdirat(f->dirfd, "real", 0700), 0);
	assert_int_equal(symlinkat("real", f->dirfd, "alias"), 0);
	snprintf(path, sizeof(path), "%s/alias", f->path);
	assert_true(sf_open_dir_path(path, NULL, 0, &e) < 0);
	assert_non_null(strstr(e.msg, "symlink"));
	snprintf(path, sizeof(path), "%s/real", f->path);
	fd = sf_open_dir_path(path, NULL, 0, &e);
	assert_true(fd >= 0);
	close(fd);
	unlinkat(f->dirfd, "alias", 0);
	unlinkat(f->dirfd, "real", AT_REMOVEDIR);
}

static void test_trusted_path_refuses_writable_ancestor(void **state)
{
	struct fixture *f = *state;
	struct pst_err e;
	char path[128];
	int fd;

	(void)f;
	/* /tmp is world-writable (sticky or not, someone else could have
	 * made our directory): refused as a trusted path, fine otherwise. */
	snprintf(path, sizeof(path), "%s", f->path);
	assert_int_equal(sf_open_dir_path(path, NULL, SF_TRUSTED_PATH, &e), -EPERM);
	assert_non_null(strstr(e.msg, "untrusted directory on the way"));
	assert_non_null(strstr(e.msg, "tmp: mode"));
	fd = sf_open_dir_path("/usr/lib", NULL, SF_TRUSTED_PATH, &e);
	assert_true(fd >= 0);
	close(fd);
}

static void test_bad_mode_refused(void **state)
{
	struct fixture *f = *state;
	struct pst_err e;

	put_file(f, "open", "data", 0644);
	assert_int_equal(sf_openat(f->dirfd, "open", O_RDONLY, &private_file, NULL, &e), -EPERM);
	assert_non_null(strstr(e.msg, "mode 0644 is too open"));
}

static void test_bad_owner_refused(void **state)
{
	struct fixture *f = *state;
	struct sf_rule root_only = private_file;
	struct pst_err e;

	if (geteuid() != 0)
		skip();
	put_file(f, "foreign", "data", 0600);
	assert_int_equal(fchownat(f->dirfd, "foreign", 65534, 65534, 0), 0);
	root_only.uid = 0;
	assert_int_equal(sf_openat(f->dirfd, "foreign", O_RDONLY, &root_only, NULL, &e), -EPERM);
	assert_non_null(strstr(e.msg, "owned by uid 65534, expected uid 0"));
}

static void test_wrong_type_and_size_refused(void **state)
{
	struct fixture *f = *state;
	char big[2048];
	struct pst_err e;

	assert_int_equal(mkfifoat(f->dirfd, "fifo", 0600), 0);
	assert_true(sf_openat(f->dirfd, "fifo", O_RDONLY | O_NONBLOCK, &private_file, NULL, &e) < 0);
	assert_non_null(strstr(e.msg, "is a FIFO, expected a regular file"));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put_file(f, "big", big, 0600);
	assert_int_equal(sf_openat(f->dirfd, "big", O_RDONLY, &private_file, NULL, &e), -EFBIG);
	assert_int_equal(sf_openat(f->dirfd, "../etc", O_RDONLY, NULL, NULL, &e), -EINVAL);
}

static void test_atomic_write_replaces(void **state)
{
	struct fixture *f = *state;
	const struct sf_new how = { .mode = 0640, .uid = SF_ANY_UID, .gid = SF_ANY_GID };
	struct stat st;
	char *content;

	put_file(f, "rec", "old", 0600);
	assert_int_equal(sf_write_atomic(f->dirfd, "rec", "new content", 11, &how, NULL), 0);
	content = get_file(f, "rec");
	assert_string_equal(content, "new content");
	free(content);
	assert_int_equal(fstatat(f->dirfd, "rec", &st, 0), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(count_entries(f), 1);
}

static void test_failed_atomic_write_keeps_old(void **state)
{
	struct fixture *f = *state;
	const struct sf_new how = { .mode = 0600, .uid = SF_ANY_UID, .gid = SF_ANY_GID };
	struct rlimit saved, small = { 16, 16 };
	char big[4096];
	struct pst_err e;
	char *content;
	int rc;

	put_file(f, "rec", "old content", 0600);
	memset(big, 'y', sizeof(big));
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &saved);
	small.rlim_max = saved.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
	rc = sf_write_atomic(f->dirfd, "rec", big, sizeof(big), &how, &e);
	setrlimit(RLIMIT_FSIZE, &saved);
	assert_int_equal(rc, -EFBIG);
	assert_non_null(strstr(e.msg, "old content kept"));
	content = get_file(f, "rec");
	assert_string_equal(content, "old content");
	free(content);
	assert_int_equal(count_entries(f), 1); /* no temporary left behind */
}

static void test_lock_excludes_other_process(void **state)
{
	struct fixture *f = *state;
	int ready[2], release[2];
	char byte = 0;
	pid_t pid;
	int status;
	int fd;

	put_file(f, "lockme", "", 0600);
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(release), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int cfd = openat(f->dirfd, "lockme", O_RDONLY);
		if (cfd < 0 || sf_lock(cfd, true, NULL) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1 || read(release[0], &byte, 1) != 1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &byte, 1), 1);
	fd = openat(f->dirfd, "lockme", O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(sf_lock(fd, false, NULL), -EWOULDBLOCK);
	assert_int_equal(write(release[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(sf_lock(fd, false, NULL), 0);
	close(fd);
	close(ready[0]); close(ready[1]); close(release[0]); close(release[1]);
}

static void test_open_locked_follows_replacement(void **state)
{
	struct fixture *f = *state;
	const struct sf_new how = { .mode = 0600, .uid = SF_ANY_UID, .gid = SF_ANY_GID };
	struct stat held, now;
	int ready[2];
	char byte;
	pid_t pid;
	int status;
	int fd;

	put_file(f, "rec", "v1", 0600);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* Hold the lock, replace the file, then let go: the waiter
		 * must end up holding the new file, not the unlinked old one. */
		int cfd = sf_open_locked(f->dirfd, "rec", O_RDONLY, &private_file, NULL, NULL);
		if (cfd < 0 || write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(200 * 1000);
		if (sf_write_atomic(f->dirfd, "rec", "v2", 2, &how, NULL) != 0)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(read(ready[0], &byte, 1), 1);
	fd = sf_open_locked(f->dirfd, "rec", O_RDONLY, &private_file, &held, NULL);
	assert_true(fd >= 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(fstatat(f->dirfd, "rec", &now, 0), 0);
	assert_int_equal(held.st_ino, now.st_ino);
	close(fd);
	close(ready[0]); close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read_all_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_checks_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinked_directory_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trusted_path_refuses_writable_ancestor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_mode_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_owner_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_type_and_size_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_write_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_atomic_write_keeps_old, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_excludes_other_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_locked_follows_replacement, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
