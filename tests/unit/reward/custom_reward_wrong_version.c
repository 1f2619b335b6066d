/* A library that claims a future ABI version; verlpp must refuse it. */
int verlpp_reward_abi_version(void) { return 2; }
double compute_score(const char* a, const char* b, const char* c, const char* d) {
  (void)a;
  (void)b;
  (void)c;
  (void)d;
  return 1.0;
}
