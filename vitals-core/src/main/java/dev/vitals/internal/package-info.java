/**
 * Not API: code two sibling modules share, exported to them alone ({@code dev.vitals.server} and
 * {@code dev.vitals.grpc}): the connection policy of the probe ports ({@link
 * dev.vitals.internal.ConnectionTable}). It may change in any release.
 */
package dev.vitals.internal;
