/*
 * pam_postern.so's recovery_crypt(): libcrypt is loaded when a recovery code
 * is typed, not in every sshd login (mapping and relocating it cost about as
 * much as the rest of a login: bench/totp). MUST fail (NULL, which denies)
 * when libcrypt or crypt_rn cannot be had; MUST NOT take a library name or
 * path from anywhere but this file.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "recovery_crypt.h"

/* The soname the module was built against: libxcrypt's, as sshd's is. */
#define LIBCRYPT_SONAME "libcrypt.so.1"

typedef char *(*crypt_rn_fn)(const char *, const char *, void *, int);

char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd)
{
	void *lib = dlopen(LIBCRYPT_SONAME, RTLD_NOW | RTLD_LOCAL);
	crypt_rn_fn fn;
	char *out = NULL;

	if (lib == NULL)
		return NULL;
	*(void **)&fn = dlsym(lib, "crypt_rn");
	if (fn != NULL)
		out = fn(code, hash, cd, sizeof(*cd));
	dlclose(lib);
	return out;
}
