/* tph_poisson's implementation, compiled as the C it is written in: scripts/bench-peers puts the
 * header from the directory it is given on the include path. Nothing of tph_poisson is kept here. */
#define TPH_POISSON_IMPLEMENTATION
#include "thinks/tph_poisson.h"
