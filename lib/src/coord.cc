// Coord's out-of-line member: the exact scaling, compiled with the library's flags
// (coord.h, "Rounding rule").
#include "chunkforge/coord.h"

#include "exact_arith.h"

namespace chunkforge {

Coord Coord::scaled(double factor) const { return exact::scaled(*this, factor); }

}  // namespace chunkforge
