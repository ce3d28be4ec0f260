// libcu_more.cu built for sm_90 (cuda::memcpy_async with a barrier becomes cp.async.bulk + mbarrier
// complete-tx; cuda::barrier waits become mbarrier.try_wait).
#include "libcu_more.cu"
