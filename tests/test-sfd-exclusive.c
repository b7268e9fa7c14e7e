#include "tap.h"
int main(void) { skip(1, "placeholder"); return done_testing(); }
