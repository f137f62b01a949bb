/** Whether the addon was built and loaded (Linux); else every call answers null. */
export declare const available: boolean;
/** The bytes the TCP peer has acknowledged on socket `fd` since it connected, or null where unknown. */
export declare function bytesAcked(fd: number): number | null;
/** Sets SO_RCVBUF of socket `fd` (tests acting as a slow client); true when the kernel took it. */
export declare function setReceiveBuffer(fd: number, bytes: number): boolean | null;
