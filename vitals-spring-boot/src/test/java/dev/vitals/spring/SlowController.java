package dev.vitals.spring;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /slow?ms=N}: holds a web-server worker for N ms (imported by {@code TestApp}). */
@RestController
class SlowController {
    @GetMapping("/slow")
    String slow(@RequestParam("ms") long ms) throws InterruptedException {
        Thread.sleep(ms);
        return "slept " + ms + " ms";
    }
}
