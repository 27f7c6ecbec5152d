// Each test file runs in its package's folder, as it would under `npm test -w <package>`: a
// domain.toml, a CLI child process or a relative path is looked up from there.
process.chdir(process.env.PROTEAN_TEST_PACKAGE_ROOT!);
