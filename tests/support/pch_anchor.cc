// The one source of cfx_test_pch, the target that builds the GoogleTest precompiled header
// every test binary reuses under GCC (tests/CMakeLists.txt). It holds no code.
