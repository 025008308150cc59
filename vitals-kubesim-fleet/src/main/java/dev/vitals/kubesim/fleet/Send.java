package dev.vitals.kubesim.fleet;

/**
 * Attempts of the model engine to send at a later step: {@code count} attempts number
 * {@code attempt} of {@code pop}, on the kept connection to replica {@code pin} while its process
 * {@code epoch} lives ({@code pin} −1: through the Service).
 */
record Send(ClientPopulation pop, int pin, int epoch, int count, int attempt) {
}
