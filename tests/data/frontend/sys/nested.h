#pragma GCC system_header
/* A nested function (GNU C), which lang-c cannot read. */
static inline int outer(int x) {
  int twice(int y) { return 2 * y; }
  return twice(x);
}
