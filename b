C1 CompilerThre 1
C2 CompilerThre 0
Common-Cleaner 0
Finalizer 0
G1 Conc#0 0
G1 Main Marker 0
G1 Refine#0 0
G1 Service 0
GC Thread#0 0
HTTP-Dispatcher 0
Monitor Deflati 0
Notification Th 0
Reference Handl 0
Service Thread 0
Signal Dispatch 0
Sweeper thread 0
VM Periodic Tas 0
VM Thread 0
idle-timeout-ta 0
java 1
java 11
