/* The dynamic annotations compiler-rt's tests call, as annotated programs
 * ship them: no-op functions in a shared library (Chromium's
 * dynamic_annotations, built as a component). Natively they do nothing;
 * under rtdd, librtdd.so's definitions come first (LD_PRELOAD). */
void AnnotateRWLockCreate(const char *file, int line, const volatile void *lock);
void AnnotateRWLockCreateStatic(const char *file, int line, const volatile void *lock);
void AnnotateRWLockDestroy(const char *file, int line, const volatile void *lock);
void AnnotateRWLockAcquired(const char *file, int line, const volatile void *lock, long is_w);
void AnnotateRWLockReleased(const char *file, int line, const volatile void *lock, long is_w);

void AnnotateRWLockCreate(const char *file, int line, const volatile void *lock) { (void)file, (void)line, (void)lock; }
void AnnotateRWLockCreateStatic(const char *file, int line, const volatile void *lock) { (void)file, (void)line, (void)lock; }
void AnnotateRWLockDestroy(const char *file, int line, const volatile void *lock) { (void)file, (void)line, (void)lock; }
void AnnotateRWLockAcquired(const char *file, int line, const volatile void *lock, long is_w)
{
    (void)file, (void)line, (void)lock, (void)is_w;
}
void AnnotateRWLockReleased(const char *file, int line, const volatile void *lock, long is_w)
{
    (void)file, (void)line, (void)lock, (void)is_w;
}
