/** Whether the addon was built and loaded; where it was not, setIdle() answers false. */
export declare const available: boolean;
/** Puts the calling thread under SCHED_IDLE (Linux); true when the kernel took it. */
export declare function setIdle(): boolean;
