/*
 * pam_postern.so's recovery_crypt() and recovery_gensalt(): libcrypt is
 * loaded when a recovery or invite code is typed, not in every sshd login
 * (mapping and relocating it cost about as much as the rest of a login:
 * bench/totp). MUST fail (NULL, which denies) when libcrypt or the function
 * cannot be had; MUST NOT take a library name or path from anywhere but
 * this file.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "recovery_crypt.h"

/* The soname the module was built against: libxcrypt's, as sshd's is. */
#define LIBCRYPT_SONAME "libcrypt.so.1"

typedef char *(*crypt_rn_fn)(const char *, const char *, void *, int);
typedef char *(*gensalt_rn_fn)(const char *, unsigned long, const char *, int, char *, int);

/* libcrypt's function name, with the library open in *lib, or NULL. */
static void *libcrypt_function(const char *name, void **lib)
{
	*lib = dlopen(LIBCRYPT_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (*lib == NULL)
		return NULL;
	return dlsym(*lib, name);
}

char *recovery_crypt(const char *code, const char *hash, struct crypt_data *cd)
{
	void *lib;
	crypt_rn_fn fn;
	char *out = NULL;

	*(void **)&fn = libcrypt_function("crypt_rn", &lib);
	if (fn != NULL)
		out = fn(code, hash, cd, sizeof(*cd));
	if (lib != NULL)
		dlclose(lib);
	return out;
}

char *recovery_gensalt(char *out, int outlen)
{
	void *lib;
	gensalt_rn_fn fn;
	char *setting = NULL;

	*(void **)&fn = libcrypt_function("crypt_gensalt_rn", &lib);
	if (fn != NULL)
		setting = fn("$y$", 0, NULL, 0, out, outlen);
	if (lib != NULL)
		dlclose(lib);
	return setting;
}
