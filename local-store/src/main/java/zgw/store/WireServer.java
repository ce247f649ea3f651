// The store's port: mongo-java-server's wire protocol handlers, as its MongoServer sets them up, with the store's own
// reply encoder (WireEncoder: documents answered from their stored bytes are written as they are).

package zgw.store;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.MongoThreadFactory;
import de.bwaldvogel.mongo.wire.MongoDatabaseHandler;
import de.bwaldvogel.mongo.wire.MongoExceptionHandler;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.MongoWireReplyEncoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

final class WireServer {
    private final MongoBackend backend;
    private EventLoopGroup boss;
    private EventLoopGroup workers;
    private Channel channel;

    WireServer(MongoBackend backend) {
        this.backend = backend;
    }

    void bind(String host, int port) {
        boss = new NioEventLoopGroup(0, new MongoThreadFactory("mongo-server-boss"));
        workers = new NioEventLoopGroup(0, new MongoThreadFactory("mongo-server-worker"));
        ChannelGroup clients = new DefaultChannelGroup("mongodb-channels", workers.next());
        channel = new ServerBootstrap()
            .group(boss, workers)
            .channel(NioServerSocketChannel.class)
            .option(ChannelOption.SO_BACKLOG, 100)
            .localAddress(new InetSocketAddress(host, port))
            .childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                public void initChannel(SocketChannel ch) {
                    ch.pipeline().addLast(new MongoWireReplyEncoder());
                    ch.pipeline().addLast(new WireEncoder());
                    ch.pipeline().addLast(new MongoWireProtocolHandler());
                    ch.pipeline().addLast(new MongoDatabaseHandler(backend, clients));
                    ch.pipeline().addLast(new MongoExceptionHandler());
                }
            })
            .bind().syncUninterruptibly().channel();
    }

    /** Stops accepting clients, lets the event loops finish what they are writing, then closes the backend. */
    void shutdown() {
        if (channel != null) {
            channel.close().syncUninterruptibly();
        }
        for (EventLoopGroup group : new EventLoopGroup[] {boss, workers}) {
            if (group != null) {
                group.shutdownGracefully(0, 5, TimeUnit.SECONDS);
            }
        }
        for (EventLoopGroup group : new EventLoopGroup[] {boss, workers}) {
            if (group != null) {
                group.terminationFuture().syncUninterruptibly();
            }
        }
        backend.close();
    }
}
